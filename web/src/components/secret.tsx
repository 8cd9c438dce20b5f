// A secret shown once (API key, agent credential, webhook secret) with a copy button.
import { useState } from 'react';

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => setCopied(true));
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

export function ShownOnce({ title, secret, onDone }: { title: string; secret: string; onDone: () => void }) {
  return (
    <section className="shown-once" aria-label={title}>
      <h3>{title}</h3>
      <p>This is shown once. Copy it now: Gatehouse keeps only its hash.</p>
      <pre className="secret" data-testid="secret">
        {secret}
      </pre>
      <div className="row">
        <CopyButton text={secret} label="Copy secret" />
        <button type="button" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </section>
  );
}
