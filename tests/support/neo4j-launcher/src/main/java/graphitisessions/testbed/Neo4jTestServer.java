package graphitisessions.testbed;

import java.nio.file.Path;
import java.time.Duration;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Starts a real Neo4j 5.26 DBMS in this JVM with Bolt on 127.0.0.1:PORT and password
 * authentication, prints "READY bolt://127.0.0.1:PORT" and serves until its standard input
 * closes or the process is signalled. The test tooling owns the process, so a dying test
 * run (closing our stdin) also stops the database.
 *
 * Usage: Neo4jTestServer HOME_DIR PORT PASSWORD
 */
public final class Neo4jTestServer {
    private Neo4jTestServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: Neo4jTestServer HOME_DIR PORT PASSWORD");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        String password = args[2];

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                // Tests try wrong passwords on purpose: never lock the test user out.
                .setConfig(GraphDatabaseSettings.auth_max_failed_attempts, 0)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(128))
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(5))
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "neo4j-shutdown"));

        // Embedded code runs with full privileges, so it can set the known test password
        // that Bolt clients must then present (no forced change on first login).
        // On a restart over the same home the password is already set, and Neo4j refuses to set
        // the same one again: that is fine.
        try {
            dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                    java.util.Map.of("password", password));
        } catch (RuntimeException e) {
            if (!String.valueOf(e.getMessage()).contains("cannot be the same")) {
                e.printStackTrace(System.out);
                dbms.shutdown();
                System.exit(1);  // never a live JVM that will not say READY
            }
        }

        System.out.println("READY bolt://127.0.0.1:" + port);
        System.out.flush();

        // Serve until the owner closes our stdin (or kills us: the shutdown hook then runs).
        while (System.in.read() != -1) {
            // ignore input
        }
        System.exit(0);
    }
}
