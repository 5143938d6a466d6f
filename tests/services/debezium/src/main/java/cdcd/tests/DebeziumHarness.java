package cdcd.tests;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;

import java.io.BufferedWriter;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs Debezium's Postgres connector in the embedded engine and writes every change record's value
 * (the Debezium envelope as JSON, without the Connect schema) as one line of a file.
 *
 * <pre>
 * java -cp ... cdcd.tests.DebeziumHarness CONNECTOR.properties OUT.jsonl MAX_CHANGES IDLE_MS MAX_MS
 * </pre>
 *
 * It stops by itself after MAX_CHANGES records, after IDLE_MS without a record once one arrived,
 * or after MAX_MS in all; then prints one JSON line of figures to stdout ({"changes":..,
 * "jvm_ms":.., "first_ms":.., "last_ms":.., "reason":..}: the JVM's uptime when main began, then
 * times in ms since main began) and exits
 * 0, or 1 when the engine failed (its error on stderr).
 */
public final class DebeziumHarness {
    private DebeziumHarness() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: DebeziumHarness CONNECTOR.properties OUT.jsonl MAX_CHANGES IDLE_MS MAX_MS");
            System.exit(2);
        }
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        Properties props = defaults();
        try (InputStream in = new FileInputStream(args[0])) {
            props.load(in);
        }
        Path out = Path.of(args[1]);
        long maxChanges = Long.parseLong(args[2]);
        long idleMs = Long.parseLong(args[3]);
        long maxMs = Long.parseLong(args[4]);

        AtomicLong changes = new AtomicLong();
        AtomicLong firstNs = new AtomicLong();
        AtomicLong lastNs = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch enough = new CountDownLatch(1);
        CountDownLatch engineDone = new CountDownLatch(1);
        long startNs = System.nanoTime();
        // How long the JVM ran before main, so that callers can time from the process start.
        long jvmMs = ManagementFactory.getRuntimeMXBean().getUptime();

        try (BufferedWriter writer = new BufferedWriter(
                new OutputStreamWriter(Files.newOutputStream(out), StandardCharsets.UTF_8), 1 << 20)) {
            DebeziumEngine<ChangeEvent<String, String>> engine = DebeziumEngine.create(Json.class)
                    .using(props)
                    .notifying((List<ChangeEvent<String, String>> batch,
                                DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer) -> {
                        for (ChangeEvent<String, String> record : batch) {
                            // A null value is a tombstone (turned off by default, see defaults()).
                            if (record.value() != null && changes.get() < maxChanges) {
                                write(writer, record.value());
                                long now = System.nanoTime();
                                if (changes.incrementAndGet() == 1) {
                                    firstNs.set(now);
                                }
                                lastNs.set(now);
                            }
                            committer.markProcessed(record);
                        }
                        committer.markBatchFinished();
                        if (changes.get() >= maxChanges) {
                            enough.countDown();
                        }
                    })
                    .using((success, message, error) -> {
                        if (!success) {
                            failure.compareAndSet(null, error != null ? error : new IllegalStateException(message));
                        }
                        engineDone.countDown();
                        enough.countDown();
                    })
                    .build();
            ExecutorService executor = Executors.newSingleThreadExecutor();
            executor.execute(engine);

            String reason = "max-changes";
            while (!enough.await(50, TimeUnit.MILLISECONDS)) {
                long now = System.nanoTime();
                long last = lastNs.get();
                if (now - startNs > maxMs * 1_000_000L) {
                    reason = "max-time";
                    break;
                }
                if (last != 0 && now - last > idleMs * 1_000_000L) {
                    reason = "idle";
                    break;
                }
            }
            if (engineDone.getCount() == 0 && changes.get() < maxChanges) {
                reason = "engine-stopped";
            }
            try {
                engine.close();
            }
            catch (IllegalStateException alreadyStopped) {
                // The engine stopped by itself (its completion callback tells why).
            }
            executor.shutdown();
            executor.awaitTermination(60, TimeUnit.SECONDS);
            writer.flush();
            System.out.println("{\"changes\":" + changes.get()
                    + ",\"jvm_ms\":" + jvmMs
                    + ",\"first_ms\":" + ms(firstNs.get(), startNs)
                    + ",\"last_ms\":" + ms(lastNs.get(), startNs)
                    + ",\"reason\":\"" + reason + "\"}");
        }
        catch (IOException e) {
            failure.compareAndSet(null, e);
        }
        Throwable error = failure.get();
        if (error != null) {
            error.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private static void write(BufferedWriter writer, String line) {
        try {
            writer.write(line);
            writer.write('\n');
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static double ms(long ns, long startNs) {
        return ns == 0 ? -1 : (ns - startNs) / 1e6;
    }

    /** Settings the caller's properties may override. */
    private static Properties defaults() {
        Properties p = new Properties();
        p.setProperty("name", "cdcd-harness");
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("topic.prefix", "harness");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "10000");
        // A delete is one record, as in cdcd's debezium-json output.
        p.setProperty("tombstones.on.delete", "false");
        // The envelope alone, as cdcd's debezium-json without include-schema. Decimals as JSON
        // numbers instead of the Connect default (base64 of the unscaled bytes): the same value,
        // readable, and what Flink CDC's debezium-json writes too.
        for (String prefix : new String[] {"converter.", "key.converter.", "value.converter."}) {
            p.setProperty(prefix + "schemas.enable", "false");
            p.setProperty(prefix + "decimal.format", "NUMERIC");
        }
        return p;
    }
}
