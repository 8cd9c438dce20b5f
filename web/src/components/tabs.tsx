// Tabs on a page (a user's or an agent's: Details, Access), the chosen one kept in the address
// (?tab=) so it can be linked to and survives a reload. WAI-ARIA tabs: a tablist of buttons, one panel.
import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';

export function Tabs({
  label,
  tabs,
}: {
  label: string;
  tabs: Array<{ id: string; title: string; panel: () => ReactNode }>;
}) {
  const [params, setParams] = useSearchParams();
  const chosen = tabs.find((t) => t.id === params.get('tab')) ?? tabs[0];
  if (!chosen) return null;
  return (
    <>
      <div className="tabs" role="tablist" aria-label={label}>
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={t.id === chosen.id}
            aria-controls={`panel-${t.id}`}
            onClick={() =>
              setParams(
                (p) => {
                  p.set('tab', t.id);
                  return p;
                },
                { replace: true },
              )
            }
          >
            {t.title}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${chosen.id}`} aria-labelledby={`tab-${chosen.id}`}>
        {chosen.panel()}
      </div>
    </>
  );
}
