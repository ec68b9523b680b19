import java.io.*;
public class CrashBot {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line; int requests = 0;
    while ((line = in.readLine()) != null) {
      if (line.contains("\"type\":\"start\"")) { System.out.println("{\"type\":\"ready\"}"); System.out.flush(); }
      else if (line.contains("\"type\":\"request\"")) {
        requests++;
        System.err.println("request " + requests);
        if (requests == 2) {
          try { int[] legal = new int[1]; legal[3] = 1; }
          catch (RuntimeException e) { throw new IllegalStateException("choosing failed", e); }
        }
        System.out.println("{\"type\":\"action\",\"index\":0}"); System.out.flush();
      }
    }
  }
}
