import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useApiMutation, useApiQuery } from '../../api/hooks';
import type { components } from '../../api/generated/gateway';
import { ErrorNote } from '../../components/ErrorNote';
import { when } from '../../components/Json';
import { List } from '../../components/List';

type Message = components['schemas']['ConversationMessage'];
type Template = components['schemas']['TemplateView'];

/** Status ticks as the chat app shows them. */
const TICKS: Record<string, string> = { accepted: '🕓', sent: '✓', delivered: '✓✓', read: '✓✓ read', failed: '✕ failed', received: '' };

/** The phone's conversations, the latest first; one conversation both ways with a reply box. */
export default function Inbox() {
  const [params, setParams] = useSearchParams();
  const contact = params.get('contact');
  return (
    <>
      <h1>Inbox</h1>
      {contact && <Conversation waId={contact} />}
      <List
        service="gateway"
        path="/api/Conversations"
        sizeParam="limit"
        init={{}}
        label="Conversations"
        empty="No conversations yet: a customer's message (or POST api/Sandbox/Inbound) starts one."
        columns={[
          { header: 'Contact', cell: (c) => (c.profile_name ? `${c.profile_name} (${c.wa_id})` : c.wa_id) },
          {
            header: 'Last message',
            cell: (c) => (c.last_message ? `${c.last_message.direction === 'inbound' ? '←' : '→'} ${c.last_message.text || c.last_message.type}` : ''),
          },
          { header: 'Unread', cell: (c) => c.unread_count },
          { header: 'Window', cell: (c) => (c.window === 'open' && c.window_expires_at ? `open until ${when(c.window_expires_at)}` : 'closed') },
          { header: 'Opted out', cell: (c) => (c.opted_out ? 'yes' : '') },
          {
            header: 'Open',
            cell: (c) => (
              <button type="button" onClick={() => setParams({ contact: c.wa_id })} aria-label={`Open the conversation with ${c.profile_name || c.wa_id}`}>
                Open
              </button>
            ),
          },
        ]}
        rowKey={(c) => c.wa_id}
      />
    </>
  );
}

/** One conversation, oldest message first, refreshed every 2 s (status ticks as they arrive). */
function Conversation({ waId }: { waId: string }) {
  const path = { params: { path: { wa_id: waId } } };
  const summary = useApiQuery('gateway', '/api/Conversations/{wa_id}', path, { refetchInterval: 2000 });
  const thread = useApiQuery(
    'gateway',
    '/api/Conversations/{wa_id}/Messages',
    { params: { path: { wa_id: waId }, query: { limit: 50 } } },
    { refetchInterval: 2000 },
  );
  const messages = [...(thread.data?.data ?? [])].reverse();
  const lastInbound = [...messages].reverse().find((m) => m.direction === 'inbound' && m.status !== 'read');
  const markRead = useApiMutation('gateway', 'post', '/api/Messages', (id: string) => ({
    body: { messaging_product: 'whatsapp', status: 'read' as const, message_id: id },
  }));
  return (
    <section aria-labelledby="conversation-title" className="card">
      <h2 id="conversation-title">Conversation with {summary.data?.profile_name || waId}</h2>
      <ErrorNote error={summary.error ?? thread.error} />
      <ol className="timeline" aria-label="Messages" aria-live="polite">
        {messages.map((m) => (
          <MessageLine key={m.id} message={m} />
        ))}
      </ol>
      {lastInbound && (
        <button type="button" onClick={() => markRead.mutate(lastInbound.id)} disabled={markRead.isPending}>
          Mark read
        </button>
      )}
      {summary.data && (summary.data.window === 'open' ? <TextReply waId={waId} /> : <TemplateReply waId={waId} />)}
    </section>
  );
}

function MessageLine({ message }: { message: Message }) {
  const text = typeof message.payload.text === 'object' && message.payload.text ? String((message.payload.text as { body?: unknown }).body ?? '') : '';
  return (
    <li className={message.direction} data-testid="conversation-message">
      <strong>{message.direction === 'inbound' ? 'Customer' : 'You'}</strong> <time dateTime={message.timestamp}>{when(message.timestamp)}</time>{' '}
      {text ? <span>{text}</span> : <code>{message.type}</code>} <span data-testid="message-status">{TICKS[message.status] ?? message.status}</span>
    </li>
  );
}

/** The window is open: any text goes. */
function TextReply({ waId }: { waId: string }) {
  const [body, setBody] = useState('');
  const send = useApiMutation('gateway', 'post', '/api/Messages', () => ({
    body: { messaging_product: 'whatsapp', recipient_type: 'individual' as const, to: waId, type: 'text' as const, text: { body } },
  }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate(undefined, { onSuccess: () => setBody('') });
  };
  return (
    <form onSubmit={submit} aria-label="Reply" className="field">
      <label htmlFor="reply-body">Your reply</label>
      <textarea id="reply-body" required rows={2} value={body} onChange={(e) => setBody(e.target.value)} />
      <ErrorNote error={send.error} />
      <button type="submit" disabled={send.isPending}>
        Send
      </button>
    </form>
  );
}

/** The body text's variables, `{{1}}` … in order. */
function variables(template: Template | undefined): number {
  const text = template?.components.find((c) => String(c.type).toUpperCase() === 'BODY')?.text;
  return new Set(typeof text === 'string' ? text.match(/\{\{\d+\}\}/g) : []).size;
}

/** The window is closed: only an approved template goes (the network refuses free-form with 131047). */
function TemplateReply({ waId }: { waId: string }) {
  const templates = useApiQuery('gateway', '/api/Templates', { params: { query: { status: 'APPROVED', limit: 100 } } });
  const [chosen, setChosen] = useState('');
  const [values, setValues] = useState<string[]>([]);
  const template = templates.data?.data.find((t) => t.id === chosen);
  const count = template?.category === 'AUTHENTICATION' ? 1 : variables(template);
  const send = useApiMutation('gateway', 'post', '/api/Messages', () => ({
    body: {
      messaging_product: 'whatsapp',
      to: waId,
      type: 'template' as const,
      template: {
        name: template!.name,
        language: { code: template!.language },
        components: count ? [{ type: 'body' as const, parameters: values.slice(0, count).map((text) => ({ type: 'text' as const, text })) }] : [],
      },
    },
  }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Reply with a template">
      <p className="muted">The customer has not written in the service window: only a template can be sent.</p>
      <div className="field">
        <label htmlFor="reply-template">Template</label>
        <select id="reply-template" required value={chosen} onChange={(e) => setChosen(e.target.value)}>
          <option value="">Choose an approved template</option>
          {templates.data?.data.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name} ({t.language}, {t.category})
            </option>
          ))}
        </select>
      </div>
      {Array.from({ length: count }, (_, i) => (
        <div className="field" key={i}>
          <label htmlFor={`reply-var-${i}`}>{`{{${i + 1}}}`}</label>
          <input id={`reply-var-${i}`} required value={values[i] ?? ''} onChange={(e) => setValues((v) => Object.assign([...v], { [i]: e.target.value }))} />
        </div>
      ))}
      <ErrorNote error={templates.error ?? send.error} />
      <button type="submit" disabled={send.isPending || !template}>
        Send template
      </button>
    </form>
  );
}
