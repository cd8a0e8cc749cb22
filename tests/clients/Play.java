// A cardproof client on Java's java.net.http.HttpClient with its DEFAULT settings: it
// prefers HTTP/2, so on an http:// URL it offers "Upgrade: h2c" and speaks whatever the
// server answers. tests/test_client_matrix.py compiles it with javac and runs it.
//
//   java Play game BASE_URL CLIENT_SEED   a committed poker-squares game, end to end
//   java Play events CALLS_URL            a lockstep round's first server-sent event
//
// Each exchange is printed on one line, "STEP VERSION STATUS BODY" (VERSION is 1.1 or
// 2, as response.version() says); the test reads them and checks every answer.

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

public final class Play {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Play() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("game")) {
            game(args[1], args[2]);
        } else if (args.length == 2 && args[0].equals("events")) {
            events(args[1]);
        } else {
            System.err.println("usage: java Play game BASE_URL CLIENT_SEED | events CALLS_URL");
            System.exit(2);
        }
        System.out.flush();
        System.exit(0); // an event stream's connection may still be open: leave now
    }

    static void game(String base, String clientSeed) throws Exception {
        String committed = post("commit", base + "/v1/commitments", "{}");
        String commitment = field(committed, "commitment_id");
        String dealt = post(
            "deal",
            base + "/v1/deals",
            "{\"variant\":\"poker-squares\",\"commitment_id\":\"" + commitment
                + "\",\"client_seed\":\"" + clientSeed + "\"}");
        String deal = field(dealt, "deal_id");
        int index = 0;
        for (char row = '1'; row <= '5'; row++) {
            for (char col = 'a'; col <= 'e'; col++) {
                String body = "{\"index\":" + index + ",\"move\":\"" + col + row + "\"}";
                post("move", base + "/v1/deals/" + deal + "/moves", body);
                index++;
            }
        }
        HttpRequest receipt = HttpRequest.newBuilder(URI.create(base + "/v1/deals/" + deal + "/receipt"))
            .timeout(TIMEOUT)
            .GET()
            .build();
        report("receipt", CLIENT.send(receipt, HttpResponse.BodyHandlers.ofString()));
    }

    static void events(String url) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
            .timeout(TIMEOUT)
            .header("Accept", "text/event-stream")
            .GET()
            .build();
        HttpResponse<Stream<String>> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofLines());
        String prefix = "event " + version(response) + " " + response.statusCode() + " ";
        String name = "message";
        StringBuilder data = new StringBuilder();
        try (Stream<String> lines = response.body()) {
            Iterator<String> it = lines.iterator();
            while (it.hasNext()) {
                String line = it.next();
                if (line.startsWith("event:")) {
                    name = line.substring(6).trim();
                } else if (line.startsWith("data:")) {
                    data.append(line.substring(5).trim());
                } else if (line.isEmpty() && data.length() > 0) {
                    System.out.println(prefix + name + " " + data);
                    if (name.equals("call")) {
                        return;
                    }
                    name = "message";
                    data.setLength(0);
                }
            }
        }
        System.out.println(prefix + "(ended) -");
    }

    static String post(String step, String url, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
            .timeout(TIMEOUT)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build();
        HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        report(step, response);
        return response.body();
    }

    static void report(String step, HttpResponse<String> response) {
        String body = response.body().replace("\n", " ").replace("\r", " ");
        System.out.println(step + " " + version(response) + " " + response.statusCode() + " " + body);
    }

    static String version(HttpResponse<?> response) {
        return response.version() == HttpClient.Version.HTTP_2 ? "2" : "1.1";
    }

    /** A string member of a JSON object (ids are plain ASCII: no escapes to undo). */
    static String field(String json, String name) {
        Matcher found = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*\"([^\"\\\\]*)\"").matcher(json);
        if (!found.find()) {
            System.out.println("missing " + name + " in " + json);
            System.exit(1);
        }
        return found.group(1);
    }
}
