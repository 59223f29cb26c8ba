/**
 * Attempt durations as the rollup keeps them (webhook_attempt_minutes): a count per fixed bin, the bins spaced by
 * a factor of 2^(1/8) (about 9 %). Bin 0 holds 0 ms; bin k >= 1 holds [2^((k-1)/8), 2^(k/8)) ms, so 1 ms is bin 1,
 * 10 ms bin 27, 1 s bin 80, 10 s bin 107, 60 s bin 127 (SQL: pdp_duration_bin in db/migrations/0017). A bin stands
 * for one value, 2LU/(L+U) of its bounds L and U, which is within (γ-1)/(γ+1) = 4.33 % (γ = 2^(1/8)) of every
 * duration the bin holds. A percentile is read as percentile_cont reads it from the durations themselves (the two
 * ranks around q·(n-1), interpolated), over those values: an interpolation of two values each within 4.33 % is within
 * 4.33 % of the interpolation of the exact ones, so p50 and p95 are within 4.33 % of the exact percentile (before
 * rounding to whole milliseconds). Fixed bins, not a sketch per row: rows merge by adding counts, in any order.
 */

const BINS_PER_DOUBLING = 8;

/** The relative error bound of a duration read from its bin: (γ-1)/(γ+1) with γ = 2^(1/8). */
export const DURATION_ERROR_BOUND = (2 ** (1 / BINS_PER_DOUBLING) - 1) / (2 ** (1 / BINS_PER_DOUBLING) + 1);

/** The bin of a duration in milliseconds, as pdp_duration_bin computes it in SQL (the rollup's bins are made there). */
export function durationBin(ms: number): number {
  return ms < 1 ? 0 : 1 + Math.floor(BINS_PER_DOUBLING * Math.log2(ms) + 1e-9);
}

/** The one value that stands for every duration of a bin (within DURATION_ERROR_BOUND of each). */
export function binValue(bin: number): number {
  if (bin <= 0) return 0;
  const low = 2 ** ((bin - 1) / BINS_PER_DOUBLING);
  const high = 2 ** (bin / BINS_PER_DOUBLING);
  return (2 * low * high) / (low + high);
}

/** Counts by bin (no bin twice, any order). */
export type DurationHistogram = ReadonlyArray<{ bin: number; count: number }>;

/** percentile_cont(q) over the histogram's bin values; null when it holds nothing. */
export function histogramPercentile(histogram: DurationHistogram, q: number): number | null {
  const bins = [...histogram].filter((h) => h.count > 0).sort((a, b) => a.bin - b.bin);
  const n = bins.reduce((sum, h) => sum + h.count, 0);
  if (n === 0) return null;
  const position = q * (n - 1);
  const below = Math.floor(position);
  const valueAt = (rank: number) => {
    let seen = 0;
    for (const h of bins) {
      seen += h.count;
      if (rank < seen) return binValue(h.bin);
    }
    return binValue(bins[bins.length - 1]!.bin);
  };
  const low = valueAt(below);
  return position === below ? low : low + (position - below) * (valueAt(below + 1) - low);
}
