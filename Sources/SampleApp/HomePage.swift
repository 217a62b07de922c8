/// The home page, until templates arrive.
enum HomePage {
    static let html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
          <meta charset="utf-8">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <title>Micro Sample App</title>
          <link rel="stylesheet" href="/css/app.css">
        </head>
        <body>
          <header><h1>Micro Sample App</h1></header>
          <main>
            <p>Engineering utilities for day-to-day work, served by
            Micro, a Sinatra-style web framework for Swift.</p>
            <ul class="categories">
              <li><strong>Date Conversion</strong>: milliseconds since 1970 to a formatted date and back.</li>
              <li><strong>Data Encoding</strong>: Base64, URL, hex and HTML encoding.</li>
              <li><strong>Data Encryption</strong>: digests, HMAC and bcrypt hashes.</li>
            </ul>
            <p class="note">The tools arrive with sign-in.</p>
          </main>
        </body>
        </html>

        """
}
