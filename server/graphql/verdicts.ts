import { GraphQLError } from 'graphql';

// How many operations' verdicts are kept, and the longest operation (text and variables) kept: the console sends a
// few dozen documents with a few variables each; anything longer is checked every time (as everything was before).
const KEPT = 256;
const LONGEST_KEY = 8192;

/** A refusal as data, so each request gets its own GraphQLError (Apollo adds to the errors it is given). */
export type Verdict = { message: string; extensions: Record<string, unknown> } | null;

export function refusal(error: GraphQLError): Verdict {
  return { message: error.message, extensions: { ...error.extensions } };
}

export function errorOf(verdict: Verdict): GraphQLError | undefined {
  return verdict ? new GraphQLError(verdict.message, { extensions: verdict.extensions }) : undefined;
}

/**
 * The verdicts of an operation's limits (server/graphql/limits.ts), kept by its text, operation name and variables,
 * the least recently used dropped first. The checks are pure functions of those three and the schema, and parsing
 * and walking the document for them cost ~1.4 ms of each console request's ~12-30 ms of CPU (issue 29's profile of
 * the deliveries page: `npm run bench -- operator-queries --profile`).
 */
export class Verdicts {
  private readonly kept = new Map<string, Verdict>();

  judge(operation: { query?: unknown; operationName?: unknown; variables?: unknown }, check: () => Verdict): Verdict {
    const key = JSON.stringify([operation.query, operation.operationName ?? null, operation.variables ?? null]);
    if (typeof operation.query !== 'string' || key.length > LONGEST_KEY) return check();
    const known = this.kept.get(key);
    if (known !== undefined) {
      this.kept.delete(key);
      this.kept.set(key, known);
      return known;
    }
    const verdict = check();
    this.kept.set(key, verdict);
    if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value!);
    return verdict;
  }
}
