import { useState, type FormEvent } from 'react';
import { useApiMutation } from '../../api/hooks';
import { CopyId } from '../../components/CopyButton';
import { ErrorNote } from '../../components/ErrorNote';
import { fieldError } from '../../components/FieldError';
import { Timeline } from './Messages';

const GREETING = 'Hello from the console';

/** A text message sent on the sandbox (or the configured network), then its statuses as they arrive. */
export default function Send() {
  const [to, setTo] = useState('');
  const [body, setBody] = useState(GREETING);
  const send = useApiMutation('gateway', 'post', '/api/Messages', () => ({
    body: { messaging_product: 'whatsapp', recipient_type: 'individual' as const, to, type: 'text' as const, text: { body } },
  }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate(undefined, {
      onSuccess: () => {
        setTo('');
        setBody(GREETING);
      },
    });
  };
  const toError = fieldError(send.error, 'to', 'send-to', 'send-to-hint');
  const bodyError = fieldError(send.error, /^text/, 'send-body');
  // A send answers the message ids (`{success: true}` is the read mark's answer).
  const id = send.data && 'messages' in send.data ? send.data.messages[0]?.id : undefined;
  return (
    <>
      <h1>Send a test message</h1>
      <form onSubmit={submit} aria-label="Send a test message" className="card">
        <div className="field">
          <label htmlFor="send-to">Recipient phone number</label>
          <input id="send-to" required inputMode="tel" value={to} onChange={(e) => setTo(e.target.value)} {...toError.input} />
          <small id="send-to-hint">Digits with the country code, such as 15550123456</small>
          {toError.message}
        </div>
        <div className="field">
          <label htmlFor="send-body">Text</label>
          <textarea id="send-body" required rows={3} value={body} onChange={(e) => setBody(e.target.value)} {...bodyError.input} />
          {bodyError.message}
        </div>
        <ErrorNote error={send.error} />
        <button type="submit" disabled={send.isPending}>
          Send
        </button>
      </form>
      {id && (
        <>
          <p role="status">
            Sent: <CopyId id={id} what="message id" />
          </p>
          <Timeline id={id} />
        </>
      )}
    </>
  );
}
