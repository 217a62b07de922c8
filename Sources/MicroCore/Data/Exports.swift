// Routes write sql-kit's builder (`request.database.sql.select()...`) with `import Micro` alone.
@_exported import SQLKit
