/**
 * SMPP 3.4 time formats (§7.1.1), as `validity_period` and `schedule_delivery_time` carry them:
 * sixteen characters `YYMMDDhhmmsstnnp`, either
 * - absolute: `p` is `+` or `-`, `t` tenths of a second, `nn` the local time's distance from UTC in
 *   quarter hours (`+`: ahead of UTC), e.g. `261124103000004+` is 2026-11-24 10:30:00 at UTC+1;
 * - relative: `p` is `R`, `tnn` is `000`, and the fields are an interval from now, e.g.
 *   `000000013000000R` is one hour and thirty minutes.
 * An empty field means none (the SMSC's default).
 */

const FORMAT = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d)(\d\d)([-+R])$/;

/** Seconds as a relative time (§7.1.1): days, hours, minutes and seconds; years and months stay 0. */
export function relativeTime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const days = Math.floor(s / 86_400);
  if (days > 99) throw new RangeError(`${seconds} s is more than a relative time holds`);
  const two = (n: number) => String(n).padStart(2, '0');
  return `0000${two(days)}${two(Math.floor(s / 3600) % 24)}${two(Math.floor(s / 60) % 60)}${two(s % 60)}000R`;
}

/**
 * The instant a §7.1.1 time names, `now` giving the start of a relative one; undefined when the
 * text is not a valid time of either format (the SMSC answers ESME_RINVEXPIRY). A relative time's
 * years and months are calendar steps from now, as the specification counts them.
 */
export function parseSmppTime(text: string, now: Date = new Date()): Date | undefined {
  const m = FORMAT.exec(text);
  if (!m) return undefined;
  const [yy, mo, dd, hh, mi, ss, t, nn] = m.slice(1, 9).map(Number);
  const p = m[9];
  if (p === 'R') {
    if (t !== 0 || nn !== 0) return undefined;
    const at = new Date(now.getTime());
    at.setUTCFullYear(at.getUTCFullYear() + yy, at.getUTCMonth() + mo, at.getUTCDate() + dd);
    return new Date(at.getTime() + ((hh * 60 + mi) * 60 + ss) * 1000);
  }
  if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 || ss > 59 || nn > 48) return undefined;
  const local = Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss, t * 100);
  const back = new Date(local);
  // A day the month does not have (31 April) is not a date.
  if (back.getUTCDate() !== dd) return undefined;
  const offset = nn * 15 * 60_000;
  return new Date(p === '+' ? local - offset : local + offset);
}

/**
 * Seconds from `now` to a `validity_period` as a PDU carries it: the text, or the Date the `smpp`
 * package already decoded it to; undefined when it is empty (none asked for); null when it is not
 * a valid time or lies in the past.
 */
export function validitySeconds(value: unknown, now: Date = new Date()): number | undefined | null {
  if (value === undefined || value === null || value === '') return undefined;
  const at =
    value instanceof Date ? value : typeof value === 'string' ? parseSmppTime(value, now) : undefined;
  if (!at || Number.isNaN(at.getTime())) return null;
  const seconds = Math.ceil((at.getTime() - now.getTime()) / 1000);
  return seconds > 0 ? seconds : null;
}
