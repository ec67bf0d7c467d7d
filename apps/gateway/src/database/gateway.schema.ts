/** The PostgreSQL schema that holds every table of the app. */
export const GATEWAY_SCHEMA = 'gateway';
