import { describe, expect, it } from 'vitest';
import { formatClock, formatTime, shortId, timeParts, urlPieces } from '@/app/_console/ui/format';
import { fromTimeInput, timeInputFormat, toTimeInput } from '@/app/_console/ui/time-input';

// Times, ids and URLs as the console writes and reads them (issue 24): the operator's language and zone, the zone named;
// typed in the language's order and meant in the zone, summer time included. The browser gives the clock;
// these give it explicitly.

const london = { locale: 'en-GB', timeZone: 'Europe/London' };
const newYork = { locale: 'en-US', timeZone: 'America/New_York' };
const kolkata = { locale: 'en-GB', timeZone: 'Asia/Kolkata' };
const berlin = { locale: 'de-DE', timeZone: 'Europe/Berlin' };
const tokyo = { locale: 'ja-JP', timeZone: 'Asia/Tokyo' };
// ICU writes a narrow no-break space before AM/PM (Chromium's, a plain one): compared as plain spaces.
const plain = (text: string) => text.replace(/\s/g, ' ');

describe('formatTime', () => {
  it("writes an instant in the operator's language and zone, to the second, the zone named", () => {
    const at = '2026-11-26T14:03:12.000Z';
    expect(formatTime(at, london)).toBe('26 Nov 2026, 14:03:12 GMT');
    expect(plain(formatTime(at, newYork))).toBe('Nov 26, 2026, 9:03:12 AM EST');
    expect(formatTime(at, kolkata)).toBe('26 Nov 2026, 19:33:12 GMT+5:30');
    expect(formatTime(at, berlin)).toBe('26.11.2026, 15:03:12 MEZ');
  });

  it("names the zone's summer time in summer", () => {
    expect(formatTime('2026-07-15T11:00:00.000Z', london)).toBe('15 Jul 2026, 12:00:00 BST');
    expect(plain(formatTime('2026-07-15T11:00:00.000Z', newYork))).toBe('Jul 15, 2026, 7:00:00 AM EDT');
  });

  it('writes a dash for no time', () => {
    expect([formatTime(null), formatTime(undefined), formatTime('')]).toEqual(['—', '—', '—']);
  });

  it('splits into date, joint and time of day, which join back into formatTime', () => {
    const at = '2026-11-26T14:03:12.000Z';
    expect(timeParts(at, london)).toEqual(['26 Nov 2026', ', ', '14:03:12 GMT']);
    expect(timeParts(at, tokyo)).toEqual(['2026/11/26', ' ', '23:03:12 JST']);
    for (const clock of [london, newYork, kolkata, berlin, tokyo]) expect(timeParts(at, clock).join('')).toBe(formatTime(at, clock));
  });

  it('formatClock writes the time of day with the zone', () => {
    expect(formatClock(new Date('2026-11-26T14:03:12.000Z'), london)).toBe('14:03:12 GMT');
  });
});

describe('time fields', () => {
  it("are typed in the language's numeric order", () => {
    expect(timeInputFormat(london)).toBe('dd/mm/yyyy, hh:mm');
    expect(timeInputFormat(newYork)).toBe('mm/dd/yyyy, hh:mm');
    expect(timeInputFormat(berlin)).toBe('dd.mm.yyyy, hh:mm');
    expect(timeInputFormat(tokyo)).toBe('yyyy/mm/dd hh:mm');
  });

  it("show an instant in the operator's zone, to the minute, as they would type it", () => {
    const at = '2026-01-15T12:00:00.000Z';
    expect(toTimeInput(at, london)).toBe('15/01/2026, 12:00');
    expect(toTimeInput(at, newYork)).toBe('01/15/2026, 07:00');
    expect(toTimeInput(at, kolkata)).toBe('15/01/2026, 17:30');
    expect(toTimeInput(undefined, london)).toBe('');
    expect(toTimeInput('not a time', london)).toBe('');
  });

  it("read what was typed as the instant it names in the operator's zone", () => {
    expect(fromTimeInput('15/01/2026 12:00', london)).toBe('2026-01-15T12:00:00.000Z');
    expect(fromTimeInput('15/01/2026, 17:30', kolkata)).toBe('2026-01-15T12:00:00.000Z');
    expect(fromTimeInput('01/15/2026 7:00', newYork)).toBe('2026-01-15T12:00:00.000Z');
    expect(fromTimeInput('15.01.2026 13:00', berlin)).toBe('2026-01-15T12:00:00.000Z');
    expect(fromTimeInput('2026/01/15 21:00', tokyo)).toBe('2026-01-15T12:00:00.000Z');
  });

  it('take summer time from the date typed', () => {
    expect(fromTimeInput('15/07/2026 12:00', london)).toBe('2026-07-15T11:00:00.000Z');
    expect(fromTimeInput('07/15/2026 12:00', newYork)).toBe('2026-07-15T16:00:00.000Z');
    // The hour after the clocks go forward (29 March 2026, 01:00 GMT): 02:30 BST is 01:30 UTC.
    expect(fromTimeInput('29/03/2026 02:30', london)).toBe('2026-03-29T01:30:00.000Z');
  });

  it('read year-first dates (ISO, as a shared link or an old bookmark has them) in any language', () => {
    expect(fromTimeInput('2026-01-15T12:00', newYork)).toBe('2026-01-15T17:00:00.000Z');
    expect(fromTimeInput('2026-01-15 12:00:30', london)).toBe('2026-01-15T12:00:30.000Z');
  });

  it('take a date without a time as its midnight, and honour am and pm', () => {
    expect(fromTimeInput('15/01/2026', london)).toBe('2026-01-15T00:00:00.000Z');
    expect(fromTimeInput('01/15/2026 2:30 PM', newYork)).toBe('2026-01-15T19:30:00.000Z');
    expect(fromTimeInput('01/15/2026 12:05 am', newYork)).toBe('2026-01-15T05:05:00.000Z');
  });

  it('refuse what is not a time, and give nothing for nothing', () => {
    for (const typed of [
      '31/02/2026 10:00',
      '15/13/2026 10:00',
      '15/01/26 10:00',
      '15/01/2026 24:00',
      '15/01/2026 10:60',
      'tomorrow',
      '15/01',
    ]) {
      expect(fromTimeInput(typed, london), typed).toBeUndefined();
    }
    expect(fromTimeInput('15/01/2026 13:00 pm', london)).toBeUndefined();
    expect([fromTimeInput('', london), fromTimeInput('   ', london), fromTimeInput(null, london)]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('read back what they show', () => {
    for (const clock of [london, newYork, kolkata, berlin, tokyo]) {
      expect(fromTimeInput(toTimeInput('2026-07-15T11:45:00.000Z', clock), clock)).toBe('2026-07-15T11:45:00.000Z');
    }
  });
});

describe('shortId', () => {
  it('keeps a prefix and the last 8 characters of a ULID', () => {
    expect(shortId('01M8C1WQCZM6JAFTEETTYT62RX')).toBe('…TTYT62RX');
    expect(shortId('ci_01M8C1WQCZM6JAFTEETTYT62RX')).toBe('ci_…TTYT62RX');
    expect(shortId('operator:01M8C1WQCZM6JAFTEETTYT62RX')).toBe('operator:…TTYT62RX');
  });

  it('shows anything else whole', () => {
    for (const id of ['203.0.113.0/24', 'admin@example.com', 'operator:cli', '01M8C1WQ']) expect(shortId(id)).toBe(id);
  });
});

describe('urlPieces', () => {
  it('cuts a URL before its slashes, at its query separators, and nowhere inside a word', () => {
    expect(urlPieces('https://localhost:41111/timeline')).toEqual(['https://', 'localhost:41111', '/timeline']);
    expect(urlPieces('https://hooks.example.com/v2/order-events?tenant=acme&x=1#top')).toEqual([
      'https://',
      'hooks.example.com',
      '/v2',
      '/order-',
      'events',
      '?tenant=',
      'acme',
      '&x=',
      '1',
      '#top',
    ]);
  });

  it('cuts a long run without a hyphen (a token) every 24 characters, and loses nothing', () => {
    const url = 'https://example.com/hooks/aVeryLongRandomTokenThatGoesOnAndOnForever';
    expect(urlPieces(url).every((p) => p.length <= 24)).toBe(true);
    expect(urlPieces(url).join('')).toBe(url);
  });
});
