import { addAllowlistEntry, removeAllowlistEntry } from '../allowlist/edit';
import type { Ctx, OperatorActor } from '../context';
import { issueCredential, type IssuedCredential } from '../credentials/issue';
import { issueHandedOverCredential, type HandedOverCredential } from '../credentials/issue-handed-over';
import { resendHandover } from '../credentials/resend-handover';
import { revokeCredential } from '../credentials/revoke';
import { changeOperatorRole } from '../operators/change-role';
import { createOperator } from '../operators/create';
import { disableOperator } from '../operators/disable';
import { enableOperator } from '../operators/enable';
import { setOperatorPassword } from '../operators/set-password';
import { advanceOrder } from '../orders/advance';
import { ORDER_STATUSES } from '../orders/state-machine';
import { listNotices } from '../notices/list';
import { createPartner } from '../partners/create';
import { decideGoLive, type GoLiveDecision } from '../partners/go-live';
import { setRateLimit } from '../partners/set-rate-limit';
import * as value from './flag-values';
import { UsageError } from './usage-error';

export type Flags = Record<string, string>;

/** What a command may read or say besides its flags and its answer. */
export interface CliIo {
  /** The first line piped on stdin; undefined when stdin is a terminal or empty. */
  stdinLine(): Promise<string | undefined>;
  /** A line on stderr (stdout carries only the answer). */
  warn(message: string): void;
}

export interface FlagSpec {
  /** The placeholder shown in usage: `--name <name>`. */
  value: string;
  optional?: boolean;
}

export interface Command<I = unknown, R = unknown> {
  words: readonly string[];
  summary: string;
  flags: Record<string, FlagSpec>;
  /** Checks and converts the flags without the database; throws UsageError. */
  input(flags: Flags): I;
  /** Completes the input from what is piped on stdin (a password), still before the database is opened. */
  fromStdin?(input: I, io: CliIo): Promise<I>;
  run(ctx: Ctx<OperatorActor>, input: I): Promise<R>;
  /** The short human-readable answer (without --json). */
  describe(result: R, input: I): string;
  /** Order moves write their event and enqueue its webhooks with pg-boss in the same transaction (so does mail). */
  needsJobQueue?: boolean | ((input: I) => boolean);
  /** A handed-over key waits sealed (SECRET_ENCRYPTION_KEY, or the embedded default's key file); only then is the key required. */
  needsSecretBox?: boolean | ((input: I) => boolean);
}

/** Whether `command`, given this input, needs the job queue or the secret box. */
export function commandNeeds(command: Command, what: 'needsJobQueue' | 'needsSecretBox', input: unknown): boolean {
  const need = command[what];
  return typeof need === 'function' ? need(input) : Boolean(need);
}

// Erases I and R so commands of different shapes sit in one list; each is checked where it is defined.
function command<I, R>(c: Command<I, R>): Command {
  return c as unknown as Command;
}

const partner = { value: 'id' };

const goLive = (decision: GoLiveDecision, summary: string) =>
  command({
    words: ['go-live', decision],
    summary,
    flags: { partner, note: { value: 'text', optional: true } },
    input: (f) => ({
      partnerId: value.id('partner', f.partner!),
      decision,
      note: f.note === undefined ? undefined : value.text('note', f.note, 2000),
    }),
    run: async (ctx, input) => {
      const { go_live_note, ...review } = await decideGoLive({ ctx, input });
      // The JSON scripts already read stays as it was when no note is given.
      return go_live_note === null ? review : { ...review, go_live_note };
    },
    describe: (r) =>
      `Go-live review of partner ${r.id} is now '${r.go_live_status}'${'go_live_note' in r ? ` (note: ${r.go_live_note})` : ''}.`,
  });

export const COMMANDS: readonly Command[] = [
  command({
    words: ['partner', 'create'],
    summary: 'Create a partner; prints its id.',
    flags: { name: { value: 'name' } },
    input: (f) => ({ name: value.text('name', f.name!) }),
    run: async (ctx, input) => {
      const { id, name } = await createPartner({ ctx, input });
      return { id, name };
    },
    describe: (r) => `Created partner ${r.id} (${r.name}).`,
  }),
  command({
    words: ['credentials', 'issue'],
    summary:
      'Issue a credential. With --email the key is handed over (a one-time link e-mailed, the key not printed); without, it is shown this once. production needs an approved go-live.',
    flags: { partner, env: { value: 'sandbox|production' }, email: { value: 'address', optional: true } },
    input: (f) => ({
      partnerId: value.id('partner', f.partner!),
      environment: value.oneOf('env', f.env!, ['sandbox', 'production']),
      email: f.email === undefined ? undefined : value.email('email', f.email),
    }),
    run: async (ctx, { email, ...input }): Promise<IssuedCredential | HandedOverCredential> =>
      email ? issueHandedOverCredential({ ctx, input: { ...input, email } }) : issueCredential({ ctx, input }),
    describe: (r) =>
      'handed_over_to' in r
        ? `Issued a ${r.environment} credential. client_id: ${r.client_id}  handed over to ${r.handed_over_to} (a one-time link to the key, until ${r.expires_at.toISOString()})`
        : `Issued a ${r.environment} credential. client_id: ${r.client_id}  api_key: ${r.api_key}  (the key is not shown again; store it now)`,
    needsJobQueue: (input) => input.email !== undefined,
    needsSecretBox: (input) => input.email !== undefined,
  }),
  command({
    words: ['credentials', 'resend'],
    summary:
      "E-mail a new hand-over link (the old one dies). Before the key was shown it carries the same key; after, a new key replaces it. --email defaults to the latest link's address.",
    flags: { 'client-id': { value: 'id' }, email: { value: 'address', optional: true } },
    input: (f) => ({
      clientId: value.id('client-id', f['client-id']!),
      email: f.email === undefined ? undefined : value.email('email', f.email),
    }),
    run: (ctx, input) => resendHandover({ ctx, input }),
    describe: (r) =>
      `Sent a new link for ${r.client_id} to ${r.handed_over_to} (until ${r.expires_at.toISOString()})${r.key_replaced ? '; the key had been shown, so it carries a new key and the old one stops working' : '; same key, the old link no longer works'}.`,
    needsJobQueue: true,
    needsSecretBox: true,
  }),
  command({
    words: ['credentials', 'revoke'],
    summary: 'Revoke a credential; every service process refuses it within a few seconds.',
    flags: { 'client-id': { value: 'id' } },
    input: (f) => ({ clientId: value.id('client-id', f['client-id']!) }),
    run: (ctx, input) => revokeCredential({ ctx, input }),
    describe: (r) => `Revoked ${r.client_id} (revoked_at ${new Date(r.revoked_at * 1000).toISOString()}).`,
  }),
  command({
    words: ['allowlist', 'add'],
    summary: "Add a CIDR (IPv4 or IPv6; a bare address is /32 or /128) to a partner's allowlist, or relabel it.",
    flags: { partner, cidr: { value: 'cidr' }, label: { value: 'text', optional: true } },
    input: (f) => ({
      partnerId: value.id('partner', f.partner!),
      cidr: value.cidr('cidr', f.cidr!),
      label: f.label === undefined ? undefined : value.text('label', f.label),
    }),
    run: (ctx, input) => addAllowlistEntry({ ctx, input }),
    describe: (r) => `Partner ${r.partner_id} allowlists ${r.cidr}${r.label ? ` (${r.label})` : ''}.`,
  }),
  command({
    words: ['allowlist', 'remove'],
    summary: "Remove a CIDR from a partner's allowlist.",
    flags: { partner, cidr: { value: 'cidr' } },
    input: (f) => ({ partnerId: value.id('partner', f.partner!), cidr: value.cidr('cidr', f.cidr!) }),
    run: (ctx, input) => removeAllowlistEntry({ ctx, input }),
    describe: (r) => `Removed ${r.cidr} from partner ${r.partner_id}'s allowlist.`,
  }),
  goLive('request', 'Record that the partner asked for its go-live review.'),
  goLive('approve', 'Approve go-live: production credentials may then be issued.'),
  goLive('reject', 'Reject a requested go-live review; the partner may ask again.'),
  command({
    words: ['rate-limit', 'set'],
    summary: "Set a partner's requests per second per credential (burst is twice that); 'default' restores the platform's.",
    flags: { partner, 'per-second': { value: 'n|default' } },
    input: (f) => ({
      partnerId: value.id('partner', f.partner!),
      perSecond: f['per-second'] === 'default' ? null : value.integer('per-second', f['per-second']!, 1, 100_000),
    }),
    run: (ctx, input) => setRateLimit({ ctx, input }),
    describe: (r, input) =>
      `Partner ${r.id}: ${r.rate_limit_per_second} requests/s, burst ${r.burst}${input.perSecond === null ? ' (platform default)' : ''}.`,
  }),
  command({
    words: ['notices', 'list'],
    summary:
      'The webhook failure notices sent (failing, warning_50, warning_90, disabled, recovered), newest first: of one subscription, one partner, or all; each with its mails and its event deliveries.',
    flags: {
      subscription: { value: 'id', optional: true },
      partner: { value: 'id', optional: true },
      limit: { value: '1-100', optional: true },
    },
    input: (f) => ({
      subscriptionId: f.subscription === undefined ? undefined : value.id('subscription', f.subscription),
      partnerId: f.partner === undefined ? undefined : value.id('partner', f.partner),
      limit: f.limit === undefined ? 20 : value.integer('limit', f.limit, 1, 100),
    }),
    run: async (ctx, input) => {
      const notices = await listNotices({ ctx, input });
      return {
        object: 'list' as const,
        data: notices.map((n) => ({
          id: n.id,
          subscription_id: n.subscriptionId,
          partner_id: n.partnerId,
          environment: n.environment,
          stage: n.stage,
          streak: n.streak,
          created: n.createdAt.toISOString(),
          event_id: n.eventId,
          sends: n.sends.map((s) => ({ channel: s.channel, to: s.to, status: s.status, at: s.at.toISOString() })),
        })),
      };
    },
    describe: (r) =>
      r.data.length === 0
        ? 'No failure notices.'
        : r.data
            .map(
              (n) =>
                `${n.created}  ${n.stage.padEnd(10)}  ${n.subscription_id} (${n.environment})\n` +
                (n.sends.length === 0
                  ? '    nothing sent'
                  : n.sends
                      .map((s) => `    ${s.channel.padEnd(5)}  ${s.to ?? '(no subscription asks for it)'}  ${s.status}  ${s.at}`)
                      .join('\n')),
            )
            .join('\n'),
  }),
  command({
    words: ['operator', 'create'],
    summary:
      'Create a console operator (admin: everything; support: read, replay, endpoints). The password is the first line on stdin ' +
      'when stdin is not a terminal; otherwise one is generated and printed once. --password is deprecated: a password on the ' +
      'command line lands in shell history and the process list.',
    flags: { email: { value: 'email' }, role: { value: 'admin|support' }, password: { value: 'password', optional: true } },
    input: (f) => ({
      email: value.email('email', f.email!),
      password: f.password === undefined ? undefined : value.password('password', f.password),
      role: value.oneOf('role', f.role!, ['admin', 'support']),
    }),
    fromStdin: async (input, io) => {
      if (input.password !== undefined) {
        io.warn('warning: --password is deprecated (it lands in shell history); pipe the password on stdin instead.');
        return input;
      }
      const line = await io.stdinLine();
      return line === undefined ? input : { ...input, password: value.password('password', line, 'password on stdin') };
    },
    run: async (ctx, input) => {
      const { id, email, role, generatedPassword } = await createOperator({ ctx, input });
      return { id, email, role, ...(generatedPassword ? { generated_password: generatedPassword } : {}) };
    },
    describe: (r) =>
      `Created ${r.role} operator ${r.email} (${r.id}).` +
      (r.generated_password ? `\nPassword: ${r.generated_password}  (not shown again; store it now)` : ''),
  }),
  command({
    words: ['operator', 'set-role'],
    summary: "Change an operator's role; it applies from their next request. Refused when it would leave no admin.",
    flags: { id: { value: 'id' }, role: { value: 'admin|support' } },
    input: (f) => ({ id: value.id('id', f.id!), role: value.oneOf('role', f.role!, ['admin', 'support']) }),
    run: async (ctx, input) => {
      const { id, email, role, changed } = await changeOperatorRole({ ctx, input });
      return { id, email, role, changed };
    },
    describe: (r) =>
      r.changed ? `Operator ${r.email} (${r.id}) is now ${r.role}.` : `Operator ${r.email} (${r.id}) is already ${r.role}.`,
  }),
  command({
    words: ['operator', 'disable'],
    summary:
      'Disable an operator (someone who left): their sessions end at once and sign-in is refused; the audit log keeps their entries. ' +
      'Refused when no active admin would remain.',
    flags: { id: { value: 'id' } },
    input: (f) => ({ id: value.id('id', f.id!) }),
    run: async (ctx, input) => {
      const { id, email, disabledAt, changed, sessionsEnded } = await disableOperator({ ctx, input });
      return { id, email, disabled_at: disabledAt, changed, sessions_ended: sessionsEnded };
    },
    describe: (r) =>
      r.changed
        ? `Operator ${r.email} (${r.id}) is disabled; ${r.sessions_ended} session(s) ended.`
        : `Operator ${r.email} (${r.id}) was already disabled.`,
  }),
  command({
    words: ['operator', 'enable'],
    summary: 'Let a disabled operator sign in again, with the password they had.',
    flags: { id: { value: 'id' } },
    input: (f) => ({ id: value.id('id', f.id!) }),
    run: async (ctx, input) => {
      const { id, email, changed } = await enableOperator({ ctx, input });
      return { id, email, disabled_at: null, changed };
    },
    describe: (r) => (r.changed ? `Operator ${r.email} (${r.id}) may sign in again.` : `Operator ${r.email} (${r.id}) was not disabled.`),
  }),
  command({
    words: ['operator', 'set-password'],
    summary:
      'Give an operator a new password (a forgotten one, or one someone else may know); every session of theirs ends. The password ' +
      'is the first line on stdin when stdin is not a terminal; otherwise one is generated and printed once.',
    flags: { id: { value: 'id' } },
    input: (f) => ({ id: value.id('id', f.id!), password: undefined as string | undefined }),
    fromStdin: async (input, io) => {
      const line = await io.stdinLine();
      return line === undefined ? input : { ...input, password: value.password('password', line, 'password on stdin') };
    },
    run: async (ctx, input) => {
      const { id, email, sessionsEnded, generatedPassword } = await setOperatorPassword({ ctx, input });
      return { id, email, sessions_ended: sessionsEnded, ...(generatedPassword ? { generated_password: generatedPassword } : {}) };
    },
    describe: (r) =>
      `New password set for ${r.email} (${r.id}); ${r.sessions_ended} session(s) ended.` +
      (r.generated_password ? `\nPassword: ${r.generated_password}  (not shown again; store it now)` : ''),
  }),
  command({
    words: ['order', 'advance'],
    summary: `Move an order along the state machine (${ORDER_STATUSES.join(', ')}); the partner's webhooks follow. --reason: with cancelled only.`,
    flags: { order: { value: 'id' }, status: { value: 'status' }, reason: { value: 'text', optional: true } },
    input: (f) => {
      const status = value.oneOf('status', f.status!, ORDER_STATUSES);
      if (f.reason !== undefined && status !== 'cancelled') {
        throw new UsageError('parameter_invalid', '--reason goes with --status cancelled only.', 'reason');
      }
      return { orderId: value.id('order', f.order!), status, reason: f.reason === undefined ? undefined : value.text('reason', f.reason) };
    },
    run: (ctx, input) => advanceOrder({ ctx, input }),
    describe: (r) => `Order ${r.id} is now ${r.status}.`,
    needsJobQueue: true,
  }),
];

export function usageLine(c: Command): string {
  const flags = Object.entries(c.flags).map(([name, spec]) =>
    spec.optional ? `[--${name} <${spec.value}>]` : `--${name} <${spec.value}>`,
  );
  return [...c.words, ...flags].join(' ');
}
