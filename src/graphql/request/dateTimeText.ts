/**
 * Would Postgres read this text as a date, timestamp, time or interval? Checked in the GraphQL
 * layer so a bad value is `validation-failed` before any SQL runs rather than a
 * `data-exception` from the statement. The grammar is ISO 8601 (what clients and Hasura send)
 * with the variations Postgres' datetime parser also takes: a blank instead of `T`, fractional
 * seconds, `Z`/`±HH[:MM]`/zone names, `BC`, and the special words (`now`, `today`, `epoch`,
 * `infinity`..., also written `now()`). Calendar dates are checked (no February 30th).
 */

export type DateTimeKind = 'date' | 'timestamp' | 'time';

const SPECIAL: Readonly<Record<DateTimeKind, ReadonlySet<string>>> = {
  date: new Set(['epoch', 'infinity', '-infinity', '+infinity', 'now', 'today', 'tomorrow', 'yesterday']),
  timestamp: new Set(['epoch', 'infinity', '-infinity', '+infinity', 'now', 'today', 'tomorrow', 'yesterday']),
  time: new Set(['now', 'allballs']),
};

const DATE = String.raw`(\d{4,7})-(\d{1,2})-(\d{1,2})`;
const TIME = String.raw`(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?`;
const ZONE = String.raw`(?:\s*(?:Z|z|[+-]\d{1,2}(?::?\d{2}){0,2})|\s+[A-Za-z][A-Za-z0-9_/+-]*)`;
const ERA = String.raw`(?:\s+(?:BC|AD|bc|ad))`;

const DATE_TIME_RE = new RegExp(String.raw`^${DATE}(?:(?:T|t|\s+)${TIME}(${ZONE})?)?(${ERA})?$`);
const TIME_RE = new RegExp(String.raw`^${TIME}(${ZONE})?$`);

/** Days in `month` of `year` (proleptic Gregorian; `year` astronomical: 1 BC is 0). */
function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function validTime(h: string, m: string, s: string | undefined): boolean {
  const hour = Number(h);
  const minute = Number(m);
  const second = s === undefined ? 0 : Number(s);
  if (minute > 59 || second > 60) return false;
  return hour < 24 || (hour === 24 && minute === 0 && second === 0);
}

/**
 * A special word as Postgres' datetime parser reads it: case-insensitive, blanks around it, and an
 * empty pair of parentheses after it (the parser skips punctuation), so `now()`, `NOW ()`,
 * `today()` are `now` and `today`. Hasura hands such strings to Postgres as untyped literals and
 * Postgres reads them so; here they pass the check, and reach Postgres as the bound text of a
 * parameter of the column's type, never as SQL.
 */
function specialWord(s: string): string {
  return s.toLowerCase().replace(/\s*\(\s*\)$/, '');
}

/** Whether Postgres would read `text` as a value of the date/time kind. */
export function checkDateTimeText(text: string, kind: DateTimeKind): boolean {
  const s = text.trim();
  if (SPECIAL[kind].has(specialWord(s))) return true;
  if (kind === 'time') {
    const t = TIME_RE.exec(s);
    if (t) return validTime(t[1], t[2], t[3]);
    // Postgres' time input also takes a full timestamp and keeps its time of day
    const dt = DATE_TIME_RE.exec(s);
    return dt !== null && dt[4] !== undefined && validDate(dt) && validTime(dt[4], dt[5], dt[6]);
  }
  const m = DATE_TIME_RE.exec(s);
  if (!m || !validDate(m)) return false;
  return m[4] === undefined || validTime(m[4], m[5], m[6]);
}

function validDate(m: RegExpExecArray): boolean {
  const bc = m[8] !== undefined && /bc/i.test(m[8]);
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year === 0 || month < 1 || month > 12 || day < 1) return false;
  // Postgres' range: 4713 BC to 294276 AD for timestamps (dates go further; clients never need it)
  if (bc ? year > 4713 : year > 294276) return false;
  return day <= daysIn(bc ? 1 - year : year, month);
}

const UNIT = String.raw`(?:microseconds?|usecs?|us|milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|months?|mons?|years?|yrs?|y|decades?|decs?|centuries|century|cent|c|millennia|millenniums?|mils?)`;
const NUM = String.raw`[+-]?(?:\d+(?:\.\d*)?|\.\d+)`;
const ITEM = String.raw`(?:${NUM}\s*${UNIT}\b|[+-]?\d+:\d{1,2}(?::\d{1,2}(?:\.\d+)?)?|[+-]?\d+-\d+|${NUM})`;
const VERBOSE_RE = new RegExp(String.raw`^@?\s*${ITEM}(?:\s*,?\s*${ITEM})*(?:\s+ago)?$`, 'i');
const ISO_NUM = String.raw`[+-]?\d+(?:[.,]\d+)?`;
const ISO_RE = new RegExp(String.raw`^P(?:(?:${ISO_NUM}Y)?(?:${ISO_NUM}M)?(?:${ISO_NUM}W)?(?:${ISO_NUM}D)?)(?:T(?:${ISO_NUM}H)?(?:${ISO_NUM}M)?(?:${ISO_NUM}S)?)?$`, 'i');
const ISO_ALT_RE = /^P\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?)?$/i;

/** Whether Postgres would read `text` as an interval (verbose/SQL-standard/ISO 8601 forms). */
export function checkIntervalText(text: string): boolean {
  const s = text.trim();
  if (s === '') return false;
  if (/^[+-]?infinity$/i.test(s)) return true;
  if (/^P/i.test(s)) return s.length > 1 && !/T$/i.test(s) && (ISO_RE.test(s) || ISO_ALT_RE.test(s));
  return VERBOSE_RE.test(s);
}
