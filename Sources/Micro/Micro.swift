// `import Micro` brings the whole framework: the core, authentication and the account pages.
// An app that wants less imports `MicroCore` and `MicroAuth` alone.
@_exported import MicroCore
@_exported import MicroAuth
@_exported import MicroAccounts
