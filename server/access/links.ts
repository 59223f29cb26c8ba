import type { Ctx } from '../context';

/** The page a confirmation link opens: it asks for a click, since mail scanners fetch links. */
export function accessConfirmUrl(ctx: Ctx, token: string): string {
  const base = (ctx.env.PUBLIC_BASE_URL ?? `http://localhost:${ctx.env.PORT}`).replace(/\/+$/, '');
  return `${base}/access/confirm/${token}`;
}
