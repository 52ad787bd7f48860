/**
 * Loads one of a connection's lists (tools, resources, prompts, skills) and reloads it when the
 * server says it changed (skills are resources: their files' list changing).
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Operations } from '../api-types.js';
import { run } from './api.js';
import { useStore } from './store.js';

type ListOp = 'tools' | 'resources' | 'prompts' | 'skills';

export function useList<K extends ListOp, T>(
  connectionId: string,
  op: K,
  pick: (result: Operations[K]['result']) => T[],
): { items: T[] | undefined; error: string | undefined; reload: () => void } {
  const store = useStore();
  const [items, setItems] = useState<T[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const changes = (store.notifications.get(connectionId) ?? []).filter((n) =>
    n.method.startsWith(`notifications/${op === 'skills' ? 'resources' : op}/list_changed`),
  ).length;
  const reload = useCallback(() => {
    void run(connectionId, op, {} as Operations[K]['request']).then((answer) => {
      if (answer.ok) {
        setItems(pick(answer.result));
        setError(undefined);
      } else setError(answer.error.message);
    });
  }, [connectionId, op]);
  useEffect(reload, [reload, changes]);
  return { items, error, reload };
}
