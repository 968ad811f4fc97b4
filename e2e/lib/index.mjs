export * from './wait.mjs';
export * from './serve.mjs';
export * from './page.mjs';
export * from './session.mjs';
export * from './fake.mjs';
export * from './sshd.mjs';
