/** A GraphQL input with its nulls dropped: an argument given as null means "not filtered", as one left out does. */
export function withoutNulls<T extends object>(input: T | null | undefined): { [K in keyof T]?: NonNullable<T[K]> } {
  const out: { [K in keyof T]?: NonNullable<T[K]> } = {};
  for (const [key, value] of Object.entries(input ?? {})) {
    if (value !== null && value !== undefined) out[key as keyof T] = value as NonNullable<T[keyof T]>;
  }
  return out;
}
