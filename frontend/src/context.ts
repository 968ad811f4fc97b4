import { createContext, useContext } from 'react';
import type { Actions } from './actions';
import type { Backend } from './backend';
import type { Store } from './store';
import type { ViewRegistry } from './terminal/registry';

export interface AppServices {
  backend: Backend;
  store: Store;
  actions: Actions;
  views: ViewRegistry;
}

export const ServicesContext = createContext<AppServices | null>(null);

export function useServices(): AppServices {
  const s = useContext(ServicesContext);
  if (!s) throw new Error('useServices outside ServicesContext');
  return s;
}
