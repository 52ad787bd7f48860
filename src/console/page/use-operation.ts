/** A button's operation: busy while it runs, and the error it answered (shown beside the button). */
import { useState } from 'preact/hooks';
import type { ApiAnswer } from '../api-types.js';

export function useOperation(): {
  busy: boolean;
  error: string | undefined;
  start: (operation: () => Promise<ApiAnswer<unknown>>) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  return {
    busy,
    error,
    async start(operation) {
      setBusy(true);
      const answer = await operation();
      setBusy(false);
      setError(answer.ok ? undefined : answer.error.message);
    },
  };
}
