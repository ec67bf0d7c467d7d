/** Beyond a send's own timeout: a claim older than its lease was left by a worker that died mid-send (SIGKILL, lost node). */
export const CLAIM_MARGIN_MS = 5000;

/**
 * How long a worker's claim on an item (claimed in PostgreSQL before sending, so a job run twice sends once) lasts:
 * the send's timeout plus CLAIM_MARGIN_MS. A live worker's send ends within its timeout, so its claim never runs
 * out under it; a dead worker's claim runs out and another worker may take the item.
 */
export function claimLeaseMs(sendTimeoutMs: number): number {
  return sendTimeoutMs + CLAIM_MARGIN_MS;
}
