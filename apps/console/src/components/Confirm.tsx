import { useEffect, useRef, useState, type ReactNode } from 'react';

interface Ask {
  title: string;
  body: ReactNode;
  /** The confirming button's words ("Revoke"). */
  action: string;
  run(): void;
}

/**
 * Destructive actions ask first: `confirm({...})` opens a modal `<dialog>` (focus stays inside, Escape or "Keep it"
 * closes it, the safe button has the focus) and runs the action only on its button.
 */
export function useConfirm(): [(ask: Ask) => void, ReactNode] {
  const [ask, setAsk] = useState<Ask | null>(null);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (ask && dialog && !dialog.open) dialog.showModal();
  }, [ask]);
  const close = () => {
    ref.current?.close();
    setAsk(null);
  };
  const element = ask && (
    <dialog ref={ref} aria-labelledby="confirm-title" aria-describedby="confirm-body" onClose={() => setAsk(null)}>
      <h2 id="confirm-title">{ask.title}</h2>
      <div id="confirm-body">{ask.body}</div>
      <div className="dialog-actions">
        <button type="button" autoFocus onClick={close}>
          Keep it
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            const run = ask.run;
            close();
            run();
          }}
        >
          {ask.action}
        </button>
      </div>
    </dialog>
  );
  return [setAsk, element];
}
