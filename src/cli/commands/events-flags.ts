/** Every flag of the `events` subcommands. */
export interface EventsFlags {
  store?: string;
  limit?: string;
  status?: string;
  valid?: boolean;
  invalid?: boolean;
  to?: string;
  resign?: boolean;
  keep?: string;
  olderThan?: string;
  since?: string;
  until?: string;
}
