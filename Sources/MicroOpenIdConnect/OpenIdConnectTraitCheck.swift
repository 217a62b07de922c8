// MicroOpenIdConnect is built from Micro's trait of that name (on by default): a tool that
// names Micro's traits and imports this library says so here, rather than in a missing module.
#if !OpenIdConnect
#error("MicroOpenIdConnect needs Micro's trait OpenIdConnect: .package(name: \"Micro\", path: ..., traits: [\"OpenIdConnect\"])")
#endif
