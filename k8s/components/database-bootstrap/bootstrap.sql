-- One service's database and its two roles, run by the bootstrap Job of the service (k8s/bootstrap/<env>) with psql as a
-- role that may create roles and databases (docs/deployment.md#databases-and-roles):
--   :migrator  owns the database and its schema and applies the migrations (the migration Job);
--   :app       is what the service connects as: it reads and writes rows, and creates nothing.
-- Re-runnable: creates what is missing and sets the passwords and grants again.
\set ON_ERROR_STOP on

SELECT format('CREATE ROLE %I LOGIN', :'migrator')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'migrator') \gexec
SELECT format('CREATE ROLE %I LOGIN', :'app')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app') \gexec
ALTER ROLE :"migrator" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'migrator_password';
ALTER ROLE :"app" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'app_password';

SELECT format('CREATE DATABASE %I OWNER %I', :'database', :'migrator')
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'database') \gexec
ALTER DATABASE :"database" OWNER TO :"migrator";
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"database" TO :"app";

\connect :"database"
ALTER SCHEMA public OWNER TO :"migrator";
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app";
-- Rows of the tables and sequences that exist (a re-run after migrations) and of those the migrator creates.
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO :"app";
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"migrator" IN SCHEMA public
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"migrator" IN SCHEMA public
  GRANT USAGE, SELECT ON SEQUENCES TO :"app";
-- BullMQ's schema `bullmq` (the PostgreSQL-only mode's queues), which the migrations create: the app
-- works its rows too. Default privileges cover it once created; the GRANTs below cover a re-run after.
ALTER DEFAULT PRIVILEGES FOR ROLE :"migrator" GRANT USAGE ON SCHEMAS TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"migrator" GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"migrator" GRANT USAGE, SELECT ON SEQUENCES TO :"app";
SELECT format('GRANT USAGE ON SCHEMA bullmq TO %1$I; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA bullmq TO %1$I; GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA bullmq TO %1$I', :'app')
 WHERE EXISTS (SELECT FROM pg_namespace WHERE nspname = 'bullmq') \gexec
