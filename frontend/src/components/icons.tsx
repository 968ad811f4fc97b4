// Small 16px line icons.

const common = {
  width: 14,
  height: 14,
  viewBox: '0 0 16 16',
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 1.3,
  'aria-hidden': true,
} as const;

export const PlusIcon = () => (
  <svg {...common}>
    <path d="M8 3v10M3 8h10" />
  </svg>
);

export const CloseIcon = () => (
  <svg {...common}>
    <path d="M4 4l8 8M12 4l-8 8" />
  </svg>
);

export const SplitRightIcon = () => (
  <svg {...common}>
    <rect x="2.5" y="2.5" width="11" height="11" rx="1" />
    <path d="M8 2.5v11" />
  </svg>
);

export const SplitDownIcon = () => (
  <svg {...common}>
    <rect x="2.5" y="2.5" width="11" height="11" rx="1" />
    <path d="M2.5 8h11" />
  </svg>
);

export const RestartIcon = () => (
  <svg {...common}>
    <path d="M12.5 8a4.5 4.5 0 1 1-1.3-3.2" />
    <path d="M12 2.5v2.8H9.2" />
  </svg>
);

export const ChevronUpIcon = () => (
  <svg {...common}>
    <path d="M4 10l4-4 4 4" />
  </svg>
);

export const ChevronDownIcon = () => (
  <svg {...common}>
    <path d="M4 6l4 4 4-4" />
  </svg>
);

export const GearIcon = () => (
  <svg {...common}>
    <circle cx="8" cy="8" r="2.2" />
    <path d="M8 1.8v1.7M8 12.5v1.7M1.8 8h1.7M12.5 8h1.7M3.6 3.6l1.2 1.2M11.2 11.2l1.2 1.2M3.6 12.4l1.2-1.2M11.2 4.8l1.2-1.2" />
  </svg>
);

export const HistoryIcon = () => (
  <svg {...common}>
    <path d="M2.8 8a5.2 5.2 0 1 0 1.5-3.7" />
    <path d="M2.6 2.6v2.2h2.2" />
    <path d="M8 5v3.2l2.2 1.4" />
  </svg>
);

/** A spark: "start an agent". */
export const AgentIcon = () => (
  <svg {...common}>
    <path d="M8 1.8l1.4 3.8 3.8 1.4-3.8 1.4L8 12.2 6.6 8.4 2.8 7l3.8-1.4z" />
    <path d="M12.6 11v3M11.1 12.5h3" />
  </svg>
);
