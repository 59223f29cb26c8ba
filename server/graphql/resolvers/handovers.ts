import { Authorized, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { latestHandovers, type HandoverState } from '@/server/credentials/handover-state';
import { loader, type GraphQLContext } from '../context';
import { Credential, CredentialHandover } from '../types/partner';

/** A credential's latest hand-over link, batched: a page of credentials asks once. */
@Resolver(() => Credential)
export class CredentialHandoverResolver {
  @Authorized()
  @FieldResolver(() => CredentialHandover, {
    nullable: true,
    description: 'The latest one-time link to the key; null when never handed over.',
  })
  async handover(@Root() credential: Credential, @Ctx() context: GraphQLContext): Promise<CredentialHandover | null> {
    const batch = loader<string, HandoverState | null>(context, 'handovers', async (ids) => {
      const found = await latestHandovers({ ctx: context.ctx, input: { credentialIds: ids } });
      return ids.map((id) => found.get(id) ?? null);
    });
    return batch.load(credential.id);
  }
}
