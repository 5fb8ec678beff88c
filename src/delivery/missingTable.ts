/** Postgres "undefined_table" (42P01): a queue's tables are created lazily and dropped by clear_metadata. */
export function isMissingTable(e: unknown): boolean {
  const internal = (e as { internal?: { error?: { status_code?: string } } })?.internal;
  return internal?.error?.status_code === '42P01' || (e as { code?: string })?.code === '42P01';
}
