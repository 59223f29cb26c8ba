import { encodeTime } from 'ulid';

/** The lowest ULID of a moment: ids sort by creation time, so `id >= floor` is a range on the primary key. */
export function ulidFloor(at: Date): string {
  return encodeTime(Math.max(0, at.getTime()), 10) + '0000000000000000';
}
