import { Fragment, useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { Node, SplitNode } from '../api';
import { useServices } from '../context';
import { dragSizes, normSizes } from '../layout/layout';
import { Pane } from './Pane';

const MIN_PANE_PX = 60;
const KEY_STEP = 0.02;

interface ViewProps {
  tabActive: boolean;
  focusedPaneId: string;
}

export function SplitView({ node, ...rest }: { node: Node } & ViewProps) {
  if (node.type === 'pane') return <Pane pane={node} tabActive={rest.tabActive} focused={node.id === rest.focusedPaneId} />;
  return <Split node={node} {...rest} />;
}

interface DragState {
  index: number;
  start: number;
  length: number;
  startSizes: number[];
}

function Split({ node, ...rest }: { node: SplitNode } & ViewProps) {
  const { actions } = useServices();
  const ref = useRef<HTMLDivElement>(null);
  const drag = useRef<DragState | null>(null);
  // Sizes shown while dragging and until the host's layout confirms them.
  const [override, setOverride] = useState<number[] | null>(null);
  const row = node.direction === 'row';

  useEffect(() => {
    if (!drag.current) setOverride(null);
  }, [node.sizes]);

  const sizes = override ?? normSizes(node);

  const commit = (next: number[]) => {
    actions.resizeSplit(node.id, next).finally(() => {
      if (!drag.current) setOverride(null);
    });
  };

  const onPointerDown = (index: number) => (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0 || !ref.current) return;
    e.preventDefault();
    const rect = ref.current.getBoundingClientRect();
    drag.current = {
      index,
      start: row ? e.clientX : e.clientY,
      length: row ? rect.width : rect.height,
      startSizes: sizes,
    };
    e.currentTarget.setPointerCapture(e.pointerId);
    document.body.classList.add(row ? 'dragging-col' : 'dragging-row');
  };

  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d || d.length <= 0) return;
    const delta = ((row ? e.clientX : e.clientY) - d.start) / d.length;
    setOverride(dragSizes(d.startSizes, d.index, delta, Math.min(0.45, MIN_PANE_PX / d.length)));
  };

  const onPointerUp = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d) return;
    drag.current = null;
    document.body.classList.remove('dragging-col', 'dragging-row');
    if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
    const delta = ((row ? e.clientX : e.clientY) - d.start) / d.length;
    if (Math.abs(delta) < 1e-4) {
      setOverride(null);
      return;
    }
    const next = dragSizes(d.startSizes, d.index, delta, Math.min(0.45, MIN_PANE_PX / d.length));
    setOverride(next);
    commit(next);
  };

  const onKeyDown = (index: number) => (e: KeyboardEvent<HTMLDivElement>) => {
    const back = row ? 'ArrowLeft' : 'ArrowUp';
    const fwd = row ? 'ArrowRight' : 'ArrowDown';
    if (e.key !== back && e.key !== fwd) return;
    e.preventDefault();
    const next = dragSizes(sizes, index, e.key === fwd ? KEY_STEP : -KEY_STEP);
    setOverride(next);
    commit(next);
  };

  return (
    <div ref={ref} className={'split ' + (row ? 'split-row' : 'split-column')} data-split-id={node.id}>
      {node.children.map((child, i) => (
        <Fragment key={child.id}>
          {i > 0 && (
            <div
              className="divider"
              role="separator"
              aria-orientation={row ? 'vertical' : 'horizontal'}
              aria-label="Resize panes"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round((sizes[i - 1] ?? 0) * 100)}
              tabIndex={0}
              data-testid="divider"
              onKeyDown={onKeyDown(i - 1)}
            >
              <div
                className="divider-handle"
                onPointerDown={onPointerDown(i - 1)}
                onPointerMove={onPointerMove}
                onPointerUp={onPointerUp}
                onPointerCancel={onPointerUp}
              />
            </div>
          )}
          <div className="split-child" style={{ flex: `${sizes[i] ?? 0} 1 0px` }}>
            <SplitView node={child} {...rest} />
          </div>
        </Fragment>
      ))}
    </div>
  );
}
