/// The credentials.yml of the Sinatra app Micro began as, exactly as its author wrote it
/// (user / secret123).
package let seedCredentials = """
    username: user
    password_hash: $2a$10$38FTKkrtpylOYomyC03Mb..Efdzu1BFa7c7bZav1FKuYJUAzosx1u # secret 123

    # Use the bcrypt gem's Password.create('password') method to generate the password hash.

    """
