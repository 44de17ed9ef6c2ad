import { useEffect, useState } from 'react';

/** The view in the URL's fragment (`#/tables/public.article`, `#/graphiql?role=user`): bookmarkable, no secret in it. */
export type Route =
  | { view: 'tables'; table?: string }
  | { view: 'permissions' }
  | { view: 'graphiql'; role?: string }
  | { view: 'events' }
  | { view: 'metadata' }
  | { view: 'schema' }
  | { view: 'scheduled' };

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const [view, arg] = path.split('/');
  const params = new URLSearchParams(query);
  if (view === 'permissions') return { view };
  if (view === 'metadata' || view === 'events' || view === 'schema' || view === 'scheduled') return { view };
  if (view === 'graphiql') return params.get('role') ? { view, role: params.get('role') as string } : { view };
  return arg ? { view: 'tables', table: decodeURIComponent(arg) } : { view: 'tables' };
}

export function go(route: Route): void {
  if (route.view === 'tables') location.hash = route.table ? `#/tables/${encodeURIComponent(route.table)}` : '#/tables';
  else if (route.view === 'graphiql') location.hash = route.role ? `#/graphiql?role=${encodeURIComponent(route.role)}` : '#/graphiql';
  else location.hash = `#/${route.view}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
