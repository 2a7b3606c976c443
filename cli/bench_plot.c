/* The SVG of `resident bench --plot`: time against size, both axes logarithmic, one line
 * per place the work ran, the crossover marked. Plain SVG 1.1, no script, no fonts beyond
 * the generic families. */
#include <math.h>
#include <stdio.h>
#include "cli/bench_work.h"

#define W 760.0
#define H 460.0
#define L 80.0 /* margins */
#define R 170.0
#define T 50.0
#define B 60.0

static double lg(double v) { return log10(v); }

int rs_bw_write_svg(const char *path, const char *title, int nseries, const rs_bw_series *series, double crossover) {
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (int s = 0; s < nseries; s++)
    for (int i = 0; i < series[s].n; i++) {
      if (series[s].y[i] <= 0 || series[s].x[i] <= 0) continue;
      xmin = fmin(xmin, series[s].x[i]), xmax = fmax(xmax, series[s].x[i]);
      ymin = fmin(ymin, series[s].y[i]), ymax = fmax(ymax, series[s].y[i]);
    }
  if (!(xmin <= xmax) || !(ymin <= ymax)) return -1;
  /* whole decades around the data */
  double x0 = floor(lg(xmin)), x1 = ceil(lg(xmax)), y0 = floor(lg(ymin)), y1 = ceil(lg(ymax));
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) y1 = y0 + 1;
  FILE *f = fopen(path, "w");
  if (!f) return -1;
#define PX(v) (L + (lg(v) - x0) / (x1 - x0) * (W - L - R))
#define PY(v) (H - B - (lg(v) - y0) / (y1 - y0) * (H - T - B))
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
             "font-family=\"sans-serif\" font-size=\"12\">\n"
             "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
             "<text x=\"%.0f\" y=\"28\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
          W, H, W, H, L, title);
  /* grid and axes */
  for (double e = x0; e <= x1 + 1e-9; e += 1) {
    double px = L + (e - x0) / (x1 - x0) * (W - L - R);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", px, T, px, H - B);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1e%.0f</text>\n", px, H - B + 18, e);
  }
  for (double e = y0; e <= y1 + 1e-9; e += 1) {
    double py = H - B - (e - y0) / (y1 - y0) * (H - T - B);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, py, W - R, py);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g ms</text>\n", L - 6, py + 4, pow(10, e));
  }
  fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n", L, T, W - L - R,
          H - T - B);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">elements</text>\n", L + (W - L - R) / 2, H - 18);
  fprintf(f, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">time per run</text>\n",
          T + (H - T - B) / 2);
  if (crossover > 0 && crossover >= pow(10, x0) && crossover <= pow(10, x1)) {
    double px = PX(crossover);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" stroke-dasharray=\"5,4\"/>\n", px, T, px,
            H - B);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">crossover %.3g</text>\n", px + 4, T + 14, crossover);
  }
  /* the lines, their points, and the legend */
  for (int s = 0; s < nseries; s++) {
    const rs_bw_series *se = &series[s];
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", se->color);
    for (int i = 0; i < se->n; i++)
      if (se->y[i] > 0) fprintf(f, "%.1f,%.1f ", PX(se->x[i]), PY(se->y[i]));
    fprintf(f, "\"/>\n");
    for (int i = 0; i < se->n; i++)
      if (se->y[i] > 0)
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s: %.0f elements, %.4g ms</title></circle>\n",
                PX(se->x[i]), PY(se->y[i]), se->color, se->label, se->x[i], se->y[i]);
    double ly = T + 20 + 22 * s;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n", W - R + 16, ly,
            W - R + 40, ly, se->color);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", W - R + 46, ly + 4, se->label);
  }
  fprintf(f, "</svg>\n");
#undef PX
#undef PY
  return fclose(f) == 0 ? 0 : -1;
}
