"""Sign-on (OIDC, LDAP), groups to roles and departments, effective access, personal API tokens."""
