"use client";
/**
 * The door's camera: "Scan with camera" opens the rear camera (facingMode environment), shows
 * the video and decodes QR codes from its frames with jsQR (about seven frames a second, each
 * scaled to at most 640 px wide). jsQR, not @zxing/browser: zxing-js's detector misses about one
 * ticket code in four even on a perfect image (zxing-js/library#653; measured 44/60 vs jsQR
 * 60/60 on ticket-sized codes, docs/adr/0019). Each code is handed on once:
 * the same code is ignored while it stays in view and for a few seconds after it was last seen,
 * so a ticket held up to the camera checks in once. The camera stops with "Stop camera" and when
 * the page goes away. Permission denied or no camera: a plain sentence says what to do instead.
 * The page's verdict is drawn over the video (`overlay`), where the door's eyes are.
 */
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState, type ReactNode } from "react";

/** How long (ms) after it was last seen the same code is still ignored. */
export const SAME_CODE_QUIET_MS = 4_000;
/** Milliseconds between two decoded frames. */
const FRAME_INTERVAL_MS = 150;
/** Frames are decoded at most this wide (px): a ticket's QR fills much of the view, and smaller frames decode faster. */
const DECODE_WIDTH = 640;

/** A running camera: stopping it ends the frame loop and releases the device. */
interface Running {
  stop(): void;
}

/**
 * Opens the camera into `video` and calls `onText` with every QR text decoded from its frames.
 * @throws the getUserMedia error (NotAllowedError, NotFoundError…) when the camera does not open.
 */
async function openCamera(video: HTMLVideoElement, onText: (text: string) => void): Promise<Running> {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: false, video: { facingMode: { ideal: "environment" } } });
  const { default: jsQR } = await import("jsqr");
  video.srcObject = stream;
  await video.play().catch(() => undefined);
  const canvas = document.createElement("canvas");
  const context = canvas.getContext("2d", { willReadFrequently: true });
  const timer = setInterval(() => {
    if (!context || video.readyState < 2 || video.videoWidth === 0) return;
    const scale = Math.min(1, DECODE_WIDTH / video.videoWidth);
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    const frame = context.getImageData(0, 0, canvas.width, canvas.height);
    const found = jsQR(frame.data, frame.width, frame.height, { inversionAttempts: "dontInvert" });
    if (found?.data) onText(found.data);
  }, FRAME_INTERVAL_MS);
  return {
    stop() {
      clearInterval(timer);
      for (const track of stream.getTracks()) track.stop();
      video.srcObject = null;
    },
  };
}

/** Why the camera did not open, as a `Scan` catalogue key. */
function cameraErrorKey(error: unknown): "cameraDenied" | "cameraMissing" | "cameraBusy" | "cameraFailed" {
  const name = error instanceof Error || error instanceof DOMException ? error.name : "";
  if (name === "NotAllowedError" || name === "SecurityError" || name === "PermissionDeniedError") return "cameraDenied";
  if (name === "NotFoundError" || name === "DevicesNotFoundError" || name === "OverconstrainedError") return "cameraMissing";
  if (name === "NotReadableError" || name === "TrackStartError") return "cameraBusy";
  return "cameraFailed";
}

/** The camera's state: off, opening, or running. */
export type CameraState = "off" | "starting" | "on";

/**
 * Camera scanning, beside the typed code.
 * @param props.onCode called with each newly decoded code (the raw QR text).
 * @param props.onStart called on the tap that opens the camera (the page readies its sound then).
 * @param props.onState called when the camera opens or stops.
 * @param props.overlay drawn over the video while the camera runs (the verdict).
 */
export function CameraScanner({ onCode, onStart, onState, overlay }: { onCode: (code: string) => void; onStart?: () => void; onState?: (state: CameraState) => void; overlay?: ReactNode }) {
  const t = useTranslations("Scan");
  const video = useRef<HTMLVideoElement>(null);
  const controls = useRef<Running | null>(null);
  const starting = useRef(false);
  const lastSeen = useRef<{ text: string; at: number } | null>(null);
  const handler = useRef(onCode);
  const [state, setState] = useState<CameraState>("off");
  const [error, setError] = useState<"cameraNeedsHttps" | ReturnType<typeof cameraErrorKey> | null>(null);

  useEffect(() => {
    handler.current = onCode;
  }, [onCode]);
  useEffect(() => {
    onState?.(state);
  }, [onState, state]);

  const stop = () => {
    controls.current?.stop();
    controls.current = null;
    setState("off");
  };

  // The camera never outlives the page.
  useEffect(
    () => () => {
      controls.current?.stop();
      controls.current = null;
      starting.current = false;
    },
    [],
  );

  const start = async () => {
    if (starting.current || controls.current || !video.current) return;
    setError(null);
    onStart?.();
    if (!navigator.mediaDevices?.getUserMedia) {
      setError("cameraNeedsHttps");
      return;
    }
    starting.current = true;
    setState("starting");
    try {
      const c = await openCamera(video.current, (text) => {
        const now = Date.now();
        const last = lastSeen.current;
        lastSeen.current = { text, at: now };
        if (last && last.text === text && now - last.at < SAME_CODE_QUIET_MS) return;
        handler.current(text);
      });
      if (!starting.current) {
        // The page went away while the camera was opening.
        c.stop();
        return;
      }
      controls.current = c;
      setState("on");
    } catch (e) {
      setError(cameraErrorKey(e));
      setState("off");
    } finally {
      starting.current = false;
    }
  };

  return (
    <div className="space-y-3" data-testid="camera" data-state={state}>
      {state === "off" ? (
        <button type="button" onClick={() => void start()} className="button-go w-full px-5 py-3 sm:w-auto">
          {t("scanWithCamera")}
        </button>
      ) : (
        <button type="button" onClick={stop} disabled={state === "starting"} className="w-full rounded bg-white/10 px-5 py-3 font-semibold hover:bg-white/20 disabled:opacity-50 sm:w-auto">
          {state === "starting" ? t("openingCamera") : t("stopCamera")}
        </button>
      )}
      {/* The verdict is drawn over the picture: the door looks at the ticket, not down the page. */}
      <div className={state === "off" ? "hidden" : "relative aspect-[4/3] w-full max-w-full overflow-hidden rounded-xl bg-black"} data-testid="camera-stage">
        <video ref={video} muted playsInline aria-label={t("cameraView")} className="block h-full w-full object-cover" />
        {state !== "off" && overlay}
      </div>
      {error && (
        <p role="alert" className="rounded border border-red-400/60 bg-red-500/15 p-3 text-sm text-red-100" data-testid="camera-error">
          {t(error)}
        </p>
      )}
    </div>
  );
}
