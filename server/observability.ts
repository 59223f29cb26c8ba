/**
 * What the faces and the engine report to the process's metrics. The port is plain TypeScript so
 * the domain and jobs/ never import prom-client; server/boot/metrics.ts implements it. Every label
 * passed here comes from a fixed set (a route table pattern, a status class, an outcome, an error
 * kind, a known API version): never an id or a URL, so the series count stays bounded whatever partners send.
 */
export interface Metrics {
  /**
   * One answered request. `route`: the route table's pattern (/partner/orders/{id}) or `other`; `apiVersion`:
   * the version a partner answer was rendered in (absent for the rest).
   */
  httpRequest(route: string, method: string, status: number, seconds: number, apiVersion?: string): void;
  /**
   * One webhook attempt ended and was recorded. `result`: succeeded, retrying, failed, skipped,
   * unrecorded (the write failed) or lost (its claim was taken over meanwhile: not recorded here); `errorKind`: none, http_status, timeout, ...; `trigger`: scheduled, manual or replay
   * (replay progress: replayed attempts that succeeded). `lagSeconds`: start minus when it was due,
   * for scheduled attempts only (a replay's or a manual attempt's due time is the operator's). `apiVersion`: the
   * version its body was rendered in.
   */
  attempt(
    result: string,
    errorKind: string,
    trigger: string,
    apiVersion: string,
    durationSeconds: number | undefined,
    lagSeconds: number | undefined,
  ): void;
  /** A delivery reached its final state (succeeded, failed, skipped), its event rendered in `apiVersion`. */
  delivery(result: string, apiVersion: string): void;
  /** The delivery engine renewed its claims late: more than half a claim after the last renewal (its event loop stalled, or the database). */
  claimRenewalLate(): void;
  /** A failure notice went out (server/notices/): `stage` failing, warning_50, warning_90, disabled or recovered; `channel` email (one per message) or event. */
  notice(stage: string, channel: 'email' | 'event'): void;
}
