import type { ValueTransformer } from 'typeorm';

/** Message ids are bigint in PostgreSQL but plain numbers on the wire (safe far beyond any realistic count). */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
