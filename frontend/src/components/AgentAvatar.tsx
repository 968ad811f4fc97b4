import type { CSSProperties } from 'react';
import { hue, initials } from '../agents/format';

/** An agent's initials on a colour of its own. */
export function AgentAvatar({ id, label, size = 20 }: { id: string; label: string; size?: number }) {
  const style = { '--avatar-hue': String(hue(id)), width: size, height: size, fontSize: Math.round(size * 0.45) } as CSSProperties;
  return (
    <span className="avatar" style={style} aria-hidden="true">
      {initials(label || id)}
    </span>
  );
}
