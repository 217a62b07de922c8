import uuid

from oidc_provider.lib.claims import ScopeClaims


def claims(claims, user):
    """The standard claims of `user`: name, username, and an email the provider vouches for."""
    claims["name"] = user.get_full_name() or user.username
    claims["preferred_username"] = user.username
    claims["email"] = user.email
    claims["email_verified"] = True
    return claims


class GroupClaims(ScopeClaims):
    """OIDC_EXTRA_SCOPE_CLAIMS: `groups`, the names of the user's Django groups, sent with the
    `profile` scope (as Keycloak's and Okta's group mappers can be set to), in the ID token too."""

    def scope_profile(self):
        return {"groups": sorted(group.name for group in self.user.groups.all())}


def session_id(id_token, user, token, request, **kwargs):
    """OIDC_IDTOKEN_PROCESSING_HOOK: a `sid` in each ID token, new for each sign-in at the
    provider, as providers that send back-channel logouts put there (django-oidc-provider has
    none of its own). It is kept with the token (sessions.py lists them), so that a logout
    token (logout_token.py --sid) can name the one sign-in to end."""
    id_token["sid"] = uuid.uuid4().hex
    return id_token
