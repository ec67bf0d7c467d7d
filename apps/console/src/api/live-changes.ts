import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useSession } from '../auth/session';
import { authHeaders } from './client';
import type { components } from './generated/docstore';

type Change = components['schemas']['ChangeDto'];

/** What the page says about its live updates. */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

const RETRY_MS = 2000;

/**
 * Follows the docstore's change feed (an event stream read with fetch, which can send the token as a header,
 * unlike EventSource) and refetches the docstore's cached answers when a change in `collection` (and at `key`,
 * if given) arrives. It resumes from the last event id after any cut, so no change is missed.
 */
export function useLiveChanges(collection: string, key?: string): LiveStatus {
  const { credentials } = useSession();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const client = credentials.docstoreClient;
  useEffect(() => {
    if (!client) return;
    const stop = new AbortController();
    let last: string | undefined;
    let refetch: ReturnType<typeof setTimeout> | undefined;
    const changed = (change: Change) => {
      if (key !== undefined && change.key !== key) return;
      clearTimeout(refetch);
      refetch = setTimeout(() => void queryClient.invalidateQueries({ queryKey: ['docstore'] }), 100);
    };
    const follow = async () => {
      while (!stop.signal.aborted) {
        try {
          const query = new URLSearchParams({ collection, include_docs: 'false', since: last ?? 'now' });
          const res = await fetch(`/api/v1/client/${client}/changes?${query}`, {
            headers: { Accept: 'text/event-stream', ...authHeaders('docstore', credentials), ...(last ? { 'Last-Event-ID': last } : {}) },
            credentials: 'omit',
            signal: stop.signal,
          });
          if (!res.ok || !res.body) throw new Error(`the change feed answered ${res.status}`);
          setStatus('live');
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
            buffer += chunk.value;
            let at: number;
            while ((at = buffer.indexOf('\n\n')) >= 0) {
              const lines = buffer.slice(0, at).split('\n');
              buffer = buffer.slice(at + 2);
              const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
              const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
              if (lines.includes('event: change') && data) changed(JSON.parse(data) as Change);
              if (lines.includes('event: end') && data) last = (JSON.parse(data) as { last_cursor: string }).last_cursor;
              if (id) last = id;
            }
          }
        } catch {
          // Cut, refused or offline: try again from the last id.
        }
        if (stop.signal.aborted) return;
        setStatus('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    };
    void follow();
    return () => {
      stop.abort();
      clearTimeout(refetch);
    };
  }, [client, credentials, collection, key, queryClient]);
  return status;
}

/** The words a page shows beside its title. */
export const LIVE_LABEL: Record<LiveStatus, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' };
