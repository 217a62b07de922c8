// MicroPostgres is built from Micro's trait Postgres (on by default): a tool that names Micro's
// traits and imports this library says so here, rather than in a missing module.
#if !Postgres
#error("MicroPostgres needs Micro's trait Postgres: .package(name: \"Micro\", path: ..., traits: [\"Postgres\"])")
#endif
