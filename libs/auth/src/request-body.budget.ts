/** Which cap a body would break: the process's, or its subject's (a credential, or a client address on public routes). */
export type BudgetCap = 'process' | 'subject';

/** Bytes taken for one body; `grow` takes more as a chunked body arrives, `release` gives all back (once). */
export interface BodyReservation {
  /** Takes `bytes` more, or names the cap that refuses them (nothing is taken then). */
  grow(bytes: number): BudgetCap | null;
  release(): void;
}

/**
 * Counts the request-body bytes a process holds at once, in all and per subject, so that
 * many large bodies in flight cannot take more memory than the settings allow. A body takes
 * its declared length before a byte of it is read (so a refusal costs nothing), or its bytes
 * as they come when it has none (chunked). Subjects holding nothing are forgotten.
 */
export class BodyBudget {
  private total = 0;
  private readonly bySubject = new Map<string, number>();

  constructor(private readonly limits: { processBytes: number; subjectBytes: number }) {}

  /** Bytes held now, in all (for tests and metrics). */
  get heldBytes(): number {
    return this.total;
  }

  /** Subjects holding bytes now. */
  get subjects(): number {
    return this.bySubject.size;
  }

  /** Takes `bytes` for `subject`, or names the cap that refuses them. */
  reserve(subject: string, bytes: number): BodyReservation | BudgetCap {
    const refused = this.take(subject, bytes);
    if (refused) return refused;
    let held = bytes;
    return {
      grow: (more) => {
        if (held < 0) return 'process';
        const cap = this.take(subject, more);
        if (!cap) held += more;
        return cap;
      },
      release: () => {
        if (held < 0) return;
        this.give(subject, held);
        held = -1;
      },
    };
  }

  private take(subject: string, bytes: number): BudgetCap | null {
    const mine = this.bySubject.get(subject) ?? 0;
    if (mine + bytes > this.limits.subjectBytes) return 'subject';
    if (this.total + bytes > this.limits.processBytes) return 'process';
    this.total += bytes;
    this.bySubject.set(subject, mine + bytes);
    return null;
  }

  private give(subject: string, bytes: number): void {
    this.total -= bytes;
    const left = (this.bySubject.get(subject) ?? 0) - bytes;
    if (left > 0) this.bySubject.set(subject, left);
    else this.bySubject.delete(subject);
  }
}
