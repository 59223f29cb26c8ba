import type { Ctx } from '../context';
import { findPartnerOrThrow } from './find';
import type { TechnicalContacts } from './schemas';

/** The partner's technical contacts and whether its sandbox subscriptions notify them. */
export async function getTechnicalContacts({ ctx, input }: { ctx: Ctx; input: { partnerId: string } }): Promise<TechnicalContacts> {
  const row = await findPartnerOrThrow(ctx, input.partnerId);
  return { object: 'technical_contacts', emails: row.technicalContacts, sandbox_notifications: row.sandboxNotifications };
}
