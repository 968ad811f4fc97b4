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
