import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { SearchFlags, TerminalView } from '../terminal/TerminalView';
import { ChevronDownIcon, ChevronUpIcon, CloseIcon } from './icons';

export function SearchBox({ view, onClose }: { view: TerminalView; onClose: () => void }) {
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<{ index: number; count: number } | null>(null);
  const [flags, setFlags] = useState<SearchFlags>({});
  const [bad, setBad] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
    return view.onSearchResults((index, count) => setResult({ index, count }));
  }, [view]);

  const find = (q: string, back = false, incremental = false, f: SearchFlags = flags) => {
    const invalid = !!f.regex && !validRegex(q);
    setBad(invalid);
    if (!q || invalid) {
      view.clearSearch();
      setResult(null);
      return;
    }
    if (back) view.findPrevious(q, f);
    else view.findNext(q, incremental, f);
  };
  const toggle = (k: keyof SearchFlags) => {
    const next = { ...flags, [k]: !flags[k] };
    setFlags(next);
    // The counts follow the new options at once, from the current match.
    find(query, false, true, next);
    input.current?.focus();
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
          } else if (e.altKey && !e.ctrlKey && (e.key === 'c' || e.key === 'w' || e.key === 'r' || e.code === 'KeyC' || e.code === 'KeyW' || e.code === 'KeyR')) {
            // Alt+C / Alt+W / Alt+R, as in VS Code's find widget.
            e.preventDefault();
            toggle(e.code === 'KeyC' ? 'caseSensitive' : e.code === 'KeyW' ? 'wholeWord' : 'regex');
          }
        }}
      />
      <span className="search-toggles">
        <FlagButton on={!!flags.caseSensitive} label="Match case (Alt+C)" testid="search-case" onClick={() => toggle('caseSensitive')}>
          Aa
        </FlagButton>
        <FlagButton on={!!flags.wholeWord} label="Match whole word (Alt+W)" testid="search-word" onClick={() => toggle('wholeWord')}>
          <u>ab</u>
        </FlagButton>
        <FlagButton on={!!flags.regex} label="Use regular expression (Alt+R)" testid="search-regex" onClick={() => toggle('regex')}>
          .*
        </FlagButton>
      </span>
      <span className={'search-count' + (bad ? ' bad' : '')} aria-live="polite" data-testid="search-count">
        {bad ? 'Bad pattern' : query && result ? (result.count === 0 ? 'No results' : `${result.index >= 0 ? result.index + 1 : '?'} of ${result.count}`) : ''}
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

function FlagButton({ on, label, testid, onClick, children }: { on: boolean; label: string; testid: string; onClick: () => void; children: ReactNode }) {
  return (
    <button className={'search-flag' + (on ? ' on' : '')} aria-pressed={on} aria-label={label} title={label} data-testid={testid} onClick={onClick}>
      {children}
    </button>
  );
}

function validRegex(q: string): boolean {
  try {
    new RegExp(q);
    return true;
  } catch {
    return false;
  }
}
