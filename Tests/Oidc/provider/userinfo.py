def claims(claims, user):
    """The standard claims of `user`: name, username, and an email the provider vouches for."""
    claims["name"] = user.get_full_name() or user.username
    claims["preferred_username"] = user.username
    claims["email"] = user.email
    claims["email_verified"] = True
    return claims
