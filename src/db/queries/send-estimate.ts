import type { Queryable } from '../client.ts';

/** What a send's messages add up to, read inside its (rolled-back) transaction. */
export interface SendFigures {
  /** Segments of the messages that would be sent. */
  segments: number;
  /** Of those messages, how many are UCS-2 (a character outside GSM-7 in the text or a merged value). */
  ucs2: number;
  /** Of those messages, how many wait for the end of quiet hours. */
  held: number;
  /** The messages that would not be sent, by error code. */
  failures: { code: string; description: string; count: number }[];
}

/** The figures of one send job's messages (the estimate of POST …/messages/estimate). */
export async function sendJobFigures(db: Queryable, accountId: string, jobId: string): Promise<SendFigures> {
  const { rows } = await db.query<{
    segments: string | null;
    ucs2: string;
    held: string;
    failures: { code: string; description: string; count: number }[] | null;
  }>({
    name: 'send-job-figures',
    text: `WITH m AS (
             SELECT status, encoding, segments, not_before, error
               FROM messages WHERE account_id = $1 AND job_id = $2
           ), f AS (
             SELECT error->>'code' AS code, min(error->>'description') AS description, count(*)::int AS count
               FROM m WHERE status = 'failed' GROUP BY 1 ORDER BY 3 DESC, 1
           )
           SELECT (SELECT sum(segments) FROM m WHERE status <> 'failed') AS segments,
                  (SELECT count(*) FROM m WHERE status <> 'failed' AND encoding = 'UCS-2') AS ucs2,
                  (SELECT count(*) FROM m WHERE status <> 'failed' AND not_before > now()) AS held,
                  (SELECT json_agg(json_build_object('code', code, 'description', description, 'count', count)) FROM f) AS failures`,
    values: [accountId, jobId],
  });
  const r = rows[0];
  return {
    segments: Number(r?.segments ?? 0),
    ucs2: Number(r?.ucs2 ?? 0),
    held: Number(r?.held ?? 0),
    failures: (r?.failures ?? []).map((f) => ({ ...f, code: f.code ?? 'unknown' })),
  };
}
