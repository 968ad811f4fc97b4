// Views opened now and then (Settings, Sessions, the agents overview) are separate chunks, fetched
// the first time one is opened: the page's first script is smaller, so the window draws its
// restored panes sooner (docs/performance.md "Start-up: the page's own start").

import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';

function later<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K): LazyExoticComponent<ComponentType> {
  return lazy(() => load().then((m) => ({ default: m[name] })));
}

const Settings = later(() => import('./SettingsView'), 'SettingsView');
const Sessions = later(() => import('./SessionsView'), 'SessionsView');
const Overview = later(() => import('./AgentsOverview'), 'AgentsOverview');

/** Shown once its chunk is there (a local file: no visible wait). */
function Later({ C }: { C: LazyExoticComponent<ComponentType> }) {
  return (
    <Suspense fallback={null}>
      <C />
    </Suspense>
  );
}

export const LazySettingsView = () => <Later C={Settings} />;
export const LazySessionsView = () => <Later C={Sessions} />;
export const LazyAgentsOverview = () => <Later C={Overview} />;
