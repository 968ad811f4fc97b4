import { useEffect, useRef, useState } from 'react';
import type { TerminalView } from '../terminal/TerminalView';
import { ChevronDownIcon, ChevronUpIcon, CloseIcon } from './icons';

export function SearchBox({ view, onClose }: { view: TerminalView; onClose: () => void }) {
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<{ index: number; count: number } | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
    return view.onSearchResults((index, count) => setResult({ index, count }));
  }, [view]);

  const find = (q: string, back = false, incremental = false) => {
    if (!q) {
      view.clearSearch();
      setResult(null);
      return;
    }
    if (back) view.findPrevious(q);
    else view.findNext(q, incremental);
  };

  return (
    <div className="search-box" role="search" data-testid="search-box">
      <input
        ref={input}
        type="text"
        aria-label="Find in terminal"
        placeholder="Find"
        value={query}
        spellCheck={false}
        onChange={(e) => {
          setQuery(e.target.value);
          find(e.target.value, false, true);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            onClose();
          } else if (e.key === 'Enter') {
            e.preventDefault();
            find(query, e.shiftKey);
          }
        }}
      />
      <span className="search-count" aria-live="polite">
        {query && result ? (result.count === 0 ? 'No results' : `${result.index >= 0 ? result.index + 1 : '?'} of ${result.count}`) : ''}
      </span>
      <button className="icon-button" aria-label="Previous match" title="Previous match (Shift+Enter)" onClick={() => find(query, true)}>
        <ChevronUpIcon />
      </button>
      <button className="icon-button" aria-label="Next match" title="Next match (Enter)" onClick={() => find(query)}>
        <ChevronDownIcon />
      </button>
      <button className="icon-button" aria-label="Close search" title="Close (Escape)" onClick={onClose}>
        <CloseIcon />
      </button>
    </div>
  );
}
