// MicroCommands opens a tool's stores as AppStores does, which is MicroPostgres' (PostgreSQL when
// MICRO_DATABASE_URL is set): a tool that names Micro's traits and imports it says so here,
// rather than in a missing type.
#if !Postgres
#error("MicroCommands needs Micro's trait Postgres: .package(name: \"Micro\", path: ..., traits: [\"Postgres\"])")
#endif
