/** The terminal's width in columns, updated when the terminal is resized. */
import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

export function useColumns(): number {
  const { stdout } = useStdout();
  const [columns, setColumns] = useState(stdout.columns ?? 80);
  useEffect(() => {
    const update = () => setColumns(stdout.columns ?? 80);
    stdout.on('resize', update);
    return () => {
      stdout.off('resize', update);
    };
  }, [stdout]);
  return columns;
}
