// Every time in the partner API is integer Unix seconds (DESIGN section 3).

/** A Date as the API shows it: whole Unix seconds. */
export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** A moment cut to the whole second: a row stamped with it reads back exactly as the API showed it. */
export function wholeSecond(date: Date): Date {
  return new Date(unixSeconds(date) * 1000);
}

export function wholeSecondNow(): Date {
  return wholeSecond(new Date());
}
