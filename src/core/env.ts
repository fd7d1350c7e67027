/** The environment variables a run sees (process.env, or a test's own). */
export type Env = Readonly<Record<string, string | undefined>>;
