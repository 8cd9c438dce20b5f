// Plays an ended session's recording with asciinema-player (loaded only on this page, so the first
// load stays small): seek, speed, idle-time limit, a marker per command; plus the plain-text view and
// downloads. The player gets the cast as data: it could not send the CSRF header itself.
import { useQuery } from '@tanstack/react-query';
import type { Player } from 'asciinema-player';
import { useEffect, useRef, useState } from 'react';
import { api, download, fetchText, ok } from '../api/client';
import { SelectField } from '../components/field';
import { Empty, Loading, ProblemView } from '../components/status';

const recordingUrl = (id: string, text = false) =>
  `/v1/sessions/${encodeURIComponent(id)}/recording${text ? '?format=text' : ''}`;

export function Recording({ sessionId, startedAt }: { sessionId: string; startedAt: string }) {
  const [view, setView] = useState<'player' | 'text'>('player');
  const [speed, setSpeed] = useState('1');
  const [idle, setIdle] = useState('2');
  const [downloadError, setDownloadError] = useState<unknown>();
  const cast = useQuery({
    queryKey: ['recording', sessionId],
    queryFn: () => fetchText(recordingUrl(sessionId)),
    staleTime: Number.POSITIVE_INFINITY,
  });
  // Commands (session.command events) become markers, at their offset from the session's start.
  const commands = useQuery({
    queryKey: ['session-commands', sessionId],
    queryFn: () =>
      ok(
        api.GET('/v1/events', {
          params: { query: { session_id: sessionId, type: ['session.command'], page: 1, per_page: 100 } },
        }),
      ),
  });
  const start = Date.parse(startedAt);
  const markers: Array<[number, string]> = (commands.data?.events ?? [])
    .map((e): [number, string] => [
      Math.max(0, (Date.parse(e.time) - start) / 1000),
      String((e.data as { command?: string } | undefined)?.command ?? e.type),
    ])
    .sort((a, b) => a[0] - b[0]);
  return (
    <section aria-labelledby="recording">
      <h2 id="recording">Recording</h2>
      <div className="row" role="toolbar" aria-label="Recording view">
        <button type="button" aria-pressed={view === 'player'} onClick={() => setView('player')}>
          Player
        </button>
        <button type="button" aria-pressed={view === 'text'} onClick={() => setView('text')}>
          Text
        </button>
        <button
          type="button"
          onClick={() => download(recordingUrl(sessionId), `${sessionId}.cast`).catch(setDownloadError)}
        >
          Download cast
        </button>
        <button
          type="button"
          onClick={() => download(recordingUrl(sessionId, true), `${sessionId}.txt`).catch(setDownloadError)}
        >
          Download text
        </button>
      </div>
      {downloadError !== undefined && <ProblemView error={downloadError} title="Download failed" />}
      {view === 'text' ? (
        <TextView sessionId={sessionId} />
      ) : cast.isPending ? (
        <Loading what="the recording" />
      ) : cast.isError ? (
        <ProblemView error={cast.error} />
      ) : (
        <>
          <div className="row">
            <SelectField
              label="Speed"
              value={speed}
              onChange={setSpeed}
              options={['0.5', '1', '2', '4'].map((s) => [s, `${s}×`])}
            />
            <SelectField
              label="Skip idle time over"
              value={idle}
              onChange={setIdle}
              options={[
                ['1', '1 s'],
                ['2', '2 s'],
                ['5', '5 s'],
                ['0', 'never skip'],
              ]}
            />
          </div>
          <CastPlayer cast={cast.data} speed={Number(speed)} idle={Number(idle)} markers={markers} />
        </>
      )}
    </section>
  );
}

function CastPlayer({
  cast,
  speed,
  idle,
  markers,
}: {
  cast: string;
  speed: number;
  idle: number;
  markers: Array<[number, string]>;
}) {
  const container = useRef<HTMLDivElement>(null);
  const player = useRef<Player>(undefined);
  const [error, setError] = useState<unknown>();
  const markerKey = JSON.stringify(markers);
  useEffect(() => {
    let disposed = false;
    const el = container.current;
    if (!el) return;
    const load = Promise.all([import('asciinema-player'), import('asciinema-player/dist/bundle/asciinema-player.css')]);
    load
      .then(([AsciinemaPlayer]) => {
        if (disposed) return;
        player.current = AsciinemaPlayer.create({ data: cast }, el, {
          speed,
          ...(idle > 0 ? { idleTimeLimit: idle } : {}),
          markers: JSON.parse(markerKey) as Array<[number, string]>,
          fit: 'width',
          preload: true,
          controls: true,
        });
      })
      .catch(setError);
    return () => {
      disposed = true;
      player.current?.dispose();
      player.current = undefined;
    };
  }, [cast, speed, idle, markerKey]);
  return (
    <>
      {error !== undefined && <ProblemView error={error} title="The player could not start" />}
      <section aria-label="Recording player">
        <div ref={container} className="player" />
      </section>
      {markers.length > 0 && (
        <nav aria-label="Commands">
          <h3>Commands</h3>
          <ol className="markers">
            {markers.map(([t, label], i) => (
              <li key={`${t}-${label}`}>
                <button type="button" onClick={() => void player.current?.seek({ marker: i })}>
                  {t.toFixed(1)} s: <code>{label}</code>
                </button>
              </li>
            ))}
          </ol>
        </nav>
      )}
    </>
  );
}

function TextView({ sessionId }: { sessionId: string }) {
  const text = useQuery({
    queryKey: ['recording-text', sessionId],
    queryFn: () => fetchText(recordingUrl(sessionId, true)),
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (text.isPending) return <Loading what="the text" />;
  if (text.isError) return <ProblemView error={text.error} />;
  if (!text.data) return <Empty>Nothing was printed in this session.</Empty>;
  return (
    <section aria-label="Recording text">
      <pre className="transcript">{text.data}</pre>
    </section>
  );
}
