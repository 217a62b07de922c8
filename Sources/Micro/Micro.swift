// `import Micro` brings the whole framework: the core, authentication and the account pages
// with both of their features (two-factor sign-in, passkeys). An app that wants less imports
// the modules it uses: `MicroCore` and `MicroAuth` alone, or `MicroAccounts` with the features
// it names.
@_exported import MicroCore
@_exported import MicroAuth
@_exported import MicroAccounts
@_exported import MicroTwoFactor
@_exported import MicroPasskeys
