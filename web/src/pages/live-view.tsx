// Watches a live session: GET /v1/sessions/{id}/stream (server-sent events of asciicast lines) read
// with fetch, so it carries the CSRF header the cookie needs, and fed to asciinema-player through a
// driver of ours (the player's own eventsource driver could not send that header).
import { useQueryClient } from '@tanstack/react-query';
import type { Player } from 'asciinema-player';
import { useEffect, useRef, useState } from 'react';
import { problemOf, sessionFetch } from '../api/client';
import { ProblemView } from '../components/status';

type Dispatch = (event: string, data?: unknown) => void;

/** The messages of a text/event-stream body: `event` (default "message") and `data`. */
async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (block.startsWith(':')) continue; // keep-alive comment
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      yield { event, data: /^data: (.*)$/m.exec(block)?.[1] ?? '' };
    }
  }
}

/** A player driver that shows the stream as it arrives (no seeking: it is live). */
function liveDriver(url: string, onEnd: (why: string) => void, onError: (e: unknown) => void) {
  return ({ dispatch }: { dispatch: Dispatch }) => {
    let controller: AbortController | undefined;
    async function run(signal: AbortSignal) {
      const response = await sessionFetch(new Request(url, { signal }));
      if (!response.ok || !response.body) throw await problemOf(response);
      for await (const message of serverSentEvents(response.body)) {
        if (message.event === 'end') {
          dispatch('ended', { message: 'The session has ended' });
          onEnd('ended');
          return;
        }
        const line = JSON.parse(message.data) as [number, string, string] | { width: number; height: number };
        if (!Array.isArray(line)) {
          dispatch('reset', { size: { cols: line.width, rows: line.height } });
          dispatch('playing');
        } else if (line[1] === 'o') {
          dispatch('output', line[2]);
        } else if (line[1] === 'r') {
          const [cols, rows] = line[2].split('x').map(Number);
          dispatch('resize', { cols, rows });
        }
      }
      onEnd('closed');
    }
    return {
      play() {
        if (controller) return true;
        controller = new AbortController();
        dispatch('play');
        run(controller.signal).catch((e) => {
          if (!controller?.signal.aborted) onError(e);
        });
        return true;
      },
      stop() {
        controller?.abort();
      },
    };
  };
}

export function LiveView({ sessionId }: { sessionId: string }) {
  const container = useRef<HTMLDivElement>(null);
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>();
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    const el = container.current;
    if (!el) return;
    let player: Player | undefined;
    let disposed = false;
    const url = `/v1/sessions/${encodeURIComponent(sessionId)}/stream`;
    const driver = liveDriver(
      url,
      () => {
        setEnded(true);
        void queryClient.invalidateQueries({ queryKey: ['session', sessionId] });
      },
      setError,
    );
    Promise.all([import('asciinema-player'), import('asciinema-player/dist/bundle/asciinema-player.css')])
      .then(([AsciinemaPlayer]) => {
        if (disposed) return;
        // A function source is the player's custom-driver form (core getDriver); its typings omit it.
        player = AsciinemaPlayer.create(driver as never, el, { autoPlay: true, fit: 'width', controls: false });
      })
      .catch(setError);
    return () => {
      disposed = true;
      player?.dispose();
    };
  }, [sessionId, queryClient]);
  return (
    <section aria-labelledby="live">
      <h2 id="live">Live view</h2>
      <p className="muted">
        Read-only: what the server sends to the user, as it happens. Watching is recorded in the audit log.
      </p>
      {error !== undefined && <ProblemView error={error} title="The live view stopped" />}
      {ended && (
        <p role="status" className="notice">
          The session has ended.
        </p>
      )}
      <section aria-label="Live session">
        <div ref={container} className="player" />
      </section>
    </section>
  );
}
