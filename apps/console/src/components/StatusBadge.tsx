/** The look of a status: its tone (colour) and icon; the word itself is always shown too. */
export type Tone = 'success' | 'warning' | 'danger' | 'info' | 'neutral';
type Icon = 'check' | 'cross' | 'clock' | 'spin' | 'dash' | 'alert' | 'dot';

/**
 * Every status of every service (documents, tokens, webhooks, deliveries, attempts, messages, templates, orders,
 * ingestions, push batches and items), by tone. Unknown words are neutral: still shown, never hidden.
 */
const STATUSES: Record<string, [Tone, Icon]> = {
  // done well
  succeeded: ['success', 'check'],
  success: ['success', 'check'],
  completed: ['success', 'check'],
  delivered: ['success', 'check'],
  read: ['success', 'check'],
  sent: ['success', 'check'],
  active: ['success', 'check'],
  approved: ['success', 'check'],
  inserted: ['success', 'check'],
  paid: ['success', 'check'],
  'signed in': ['info', 'dot'],
  // on its way
  pending: ['info', 'clock'],
  scheduled: ['info', 'clock'],
  accepted: ['info', 'clock'],
  running: ['info', 'spin'],
  sending: ['info', 'spin'],
  in_appeal: ['info', 'clock'],
  // needs a look
  retrying: ['warning', 'alert'],
  paused: ['warning', 'alert'],
  expired: ['warning', 'alert'],
  updated: ['info', 'dot'],
  // failed
  failed: ['danger', 'cross'],
  failure: ['danger', 'cross'],
  invalid_token: ['danger', 'cross'],
  rejected: ['danger', 'cross'],
  revoked: ['danger', 'cross'],
  disabled: ['danger', 'cross'],
  // stopped on purpose
  cancelled: ['neutral', 'dash'],
  capped: ['neutral', 'dash'],
  quiet: ['neutral', 'dash'],
  inactive: ['neutral', 'dash'],
  deleted: ['neutral', 'dash'],
};

export function toneOf(status: string): Tone {
  return (STATUSES[status.toLowerCase()] ?? ['neutral'])[0];
}

const PATHS: Record<Icon, string> = {
  check: 'M3 8.5l3 3 7-7',
  cross: 'M4 4l8 8M12 4l-8 8',
  clock: 'M8 2.5a5.5 5.5 0 1 0 0 11 5.5 5.5 0 0 0 0-11zM8 5v3.2l2 1.3',
  spin: 'M8 2.5a5.5 5.5 0 1 1-5.5 5.5',
  dash: 'M3.5 8h9',
  alert: 'M8 2.5l6 10.5H2zM8 6.5v3M8 11.2v.3',
  dot: 'M8 6a2 2 0 1 0 0 4 2 2 0 0 0 0-4z',
};

/**
 * One status, at a glance: a tinted pill with an icon and the status word (never colour alone; the icon is
 * decorative, the word is the accessible name). Tones keep at least 4.5:1 contrast in both themes.
 */
export function StatusBadge({ status, count, testId }: { status: string; count?: number; testId?: string }) {
  const [tone, icon] = STATUSES[status.toLowerCase()] ?? ['neutral', 'dot'];
  return (
    <span className={`badge tone-${tone}`} data-status={status} data-testid={testId}>
      <svg
        viewBox="0 0 16 16"
        aria-hidden="true"
        focusable="false"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <path d={PATHS[icon]} />
      </svg>
      {count === undefined ? status : `${status} ${count}`}
    </span>
  );
}

/** Counts by status as badges ("scheduled 1", "sent 3"), the zero ones left out; "none" when all are zero. */
export function StatusCounts({ counts, testId }: { counts: Record<string, number>; testId?: string }) {
  const parts = Object.entries(counts).filter(([, n]) => n > 0);
  return (
    <span className="toolbar-inline" data-testid={testId}>
      {parts.length === 0
        ? 'none'
        : parts.map(([status, n], i) => (
            <span key={status}>
              {i > 0 && ' '}
              <StatusBadge status={status} count={n} />
            </span>
          ))}
    </span>
  );
}
