(** The papers' key results in Coq, beside the sympy-checked proofs in proofs/*.py.
    Measure theory beyond Coquelicot enters only as explicit hypotheses (Sections'
    [Hypothesis]), named in proofs/coq/README.md. *)
From Coq Require Import Reals Lra.
From Coquelicot Require Import Coquelicot.
From CertDP Require Import CertDP.
Open Scope R_scope.

(** ** Liu et al. 2022, Thm 3.1 (corrected form): the partial order of (ε, δ)-conditions.
    (ε1, δ1)-DP implies (ε2, δ2)-DP for every mechanism iff
    δ2 >= δ1 + (1 - δ1)(e^ε1 - e^ε2)^+ / (1 + e^ε1), i.e. δ2 >= adp_delta ε1 δ1 ε2. *)
Section PartialOrder.
  Variable Mech : Type.
  (** the privacy profile δ_M(ε) = sup_S P(M(D) ∈ S) - e^ε P(M(D') ∈ S) *)
  Variable profile : Mech -> R -> R.
  Definition DP (m : Mech) (e d : R) : Prop := profile m e <= d.
  (** Hypothesis 1 (measure theory: the hockey-stick divergence of an (ε, δ)-DP pair is
      at most that of its extremal pair, Liu et al. 2022 Thm 3.1's proof). *)
  Hypothesis dp_profile_bound :
    forall m e d x, 0 <= e -> 0 <= d < 1 -> 0 <= x -> DP m e d -> profile m x <= adp_delta e d x.
  (** Hypothesis 2 (the extremal mechanism: a four-point distribution pair realises
      adp_delta ε δ as its profile). *)
  Hypothesis extremal :
    forall e d, 0 <= e -> 0 <= d < 1 -> exists m, forall x, 0 <= x -> profile m x = adp_delta e d x.

  Lemma adp_delta_at : forall e d, adp_delta e d e = d.
  Proof. intros e d. unfold adp_delta. rewrite Rmax_exp_neg by lra. unfold Rdiv. ring. Qed.

  Theorem liu2022_thm31 : forall e1 d1 e2 d2, 0 <= e1 -> 0 <= e2 -> 0 <= d1 < 1 ->
    (forall m, DP m e1 d1 -> DP m e2 d2) <-> adp_delta e1 d1 e2 <= d2.
  Proof.
    intros e1 d1 e2 d2 H1 H2 Hd. split.
    - intro H. destruct (extremal e1 d1 H1 Hd) as [m Hm].
      assert (DP m e1 d1) by (unfold DP; rewrite Hm by lra; rewrite adp_delta_at; lra).
      specialize (H m H0). unfold DP in H. rewrite Hm in H by lra. exact H.
    - intros H m Hm. unfold DP. apply Rle_trans with (adp_delta e1 d1 e2); [|exact H].
      apply dp_profile_bound; auto.
  Qed.
End PartialOrder.

(** ** Liu et al. 2022, Thm 3.2: δ_μ is the hockey-stick divergence of N(μ, 1) and N(0, 1).
    On x >= t* = ε/μ + μ/2 the integrand φ(x - μ) - e^ε φ(x) is >= 0 (below t* it is
    <= 0), and its integral over [t*, T] is δ_μ(ε) minus the tail Φ(μ - T) - e^ε Φ(-T),
    which tends to 0 as T -> ∞ (Φ(-T) -> 0: [Phi_small]). *)
Lemma phi_even : forall x, phi (- x) = phi x.
Proof. intro x. unfold phi. replace (- - x * - x) with (- x * x) by ring. reflexivity. Qed.

Lemma RInt_phi_opp : forall x, RInt phi 0 (- x) = - RInt phi 0 x.
Proof.
  intro x.
  replace (RInt phi 0 (- x)) with (RInt phi (-1 * 0 + 0) (-1 * x + 0)) by (f_equal; ring).
  rewrite <- RInt_comp_lin by apply phi_ex_RInt.
  change (- RInt phi 0 x) with (opp (RInt phi 0 x)).
  rewrite <- (RInt_opp phi 0 x) by apply phi_ex_RInt.
  apply RInt_ext. intros y _. unfold scal. simpl. unfold mult. simpl.
  replace (-1 * y + 0) with (- y) by ring. rewrite phi_even. change (opp (phi y)) with (- phi y). ring.
Qed.

Lemma Phi_sym : forall x, Phi x + Phi (- x) = 1.
Proof. intro x. unfold Phi. rewrite RInt_phi_opp. field. Qed.

(** The integrand's sign: φ(x - μ) - e^ε φ(x) >= 0 iff x >= t* (μ > 0). *)
Lemma hockey_stick_sign : forall mu e x, 0 < mu -> e / mu + mu / 2 <= x ->
  0 <= phi (x - mu) - exp e * phi x.
Proof.
  intros mu e x Hmu Hx. unfold phi. unfold Rdiv at 1 2 3 4.
  rewrite <- Rmult_assoc, <- exp_plus.
  assert (e + - x * x * / 2 <= - (x - mu) * (x - mu) * / 2).
  { assert (e <= mu * x - mu * mu / 2).
    { apply (Rmult_le_compat_l mu) in Hx; [|lra]. unfold Rdiv in Hx.
      replace (mu * (e * / mu + mu * / 2)) with (e + mu * mu / 2) in Hx by (field; lra). lra. }
    lra. }
  assert (Hs : 0 < / sqrt (2 * PI)) by (apply Rinv_0_lt_compat, sqrt_lt_R0; generalize PI_RGT_0; lra).
  pose proof (exp_le _ _ H). nra.
Qed.

(** The integral of the positive part over [t*, T] (Liu et al. 2022 Thm 3.2). *)
Theorem liu2022_thm32 : forall mu e T, 0 < mu -> e / mu + mu / 2 <= T ->
  RInt (fun x => phi (x - mu) - exp e * phi x) (e / mu + mu / 2) T
  = delta_mu mu e - (Phi (mu - T) - exp e * Phi (- T)).
Proof.
  intros mu e T Hmu HT.
  assert (D : forall x, is_derive (fun x => Phi (x - mu) - exp e * Phi x) x (phi (x - mu) - exp e * phi x)).
  { intro x. unfold Phi. auto_derive.
    - repeat split; try apply RInt_phi_side; auto.
    - change (fun x0 : R => phi x0) with phi. unfold Rminus. ring. }
  assert (C : forall x, continuous (fun x => phi (x - mu) - exp e * phi x) x).
  { intro x. apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). unfold phi.
    assert (sqrt (2 * PI) <> 0) by (apply Rgt_not_eq, sqrt_lt_R0; generalize PI_RGT_0; lra).
    auto_derive. auto. }
  rewrite (is_RInt_unique _ _ _ _ (is_RInt_derive _ _ _ _ (fun x _ => D x) (fun x _ => C x))).
  unfold minus, plus, opp. simpl. unfold delta_mu.
  replace (- e / mu + mu / 2) with (mu - (e / mu + mu / 2)) by (field; lra).
  replace (- e / mu - mu / 2) with (- (e / mu + mu / 2)) by (field; lra).
  replace (e / mu + mu / 2 - mu) with (- (mu - (e / mu + mu / 2))) by ring.
  pose proof (Phi_sym (mu - (e / mu + mu / 2))). pose proof (Phi_sym (e / mu + mu / 2)).
  pose proof (Phi_sym (T - mu)). pose proof (Phi_sym T).
  replace (- (T - mu)) with (mu - T) in H1 by ring.
  nra.
Qed.

(** ** Liu et al. 2022, Thm 5.1: ε-DP ⇒ μ-GDP with Φ(-μ/2) = 1/(1 + e^ε), and no smaller μ.
    Proved here: the optimality half — at ε' = 0 the two profiles meet, so every μ' with
    δ_{ε-DP} <= δ_μ' has μ' >= μ.  The sufficiency half (δ_{ε-DP} <= δ_μ on all ε' >= 0)
    is checked per ε by the Coq kernel on a certificate of [certdp measure "pure_dp(eps=…)"]. *)
Theorem liu2022_thm51_tight : forall e mu, 0 <= e -> 0 < mu -> Phi (- mu / 2) = / (1 + exp e) ->
  delta_mu mu 0 = adp_delta e 0 0.
Proof.
  intros e mu He Hmu H. unfold delta_mu, adp_delta.
  replace (- 0 / mu + mu / 2) with (- (- mu / 2)) by (field; lra).
  replace (- 0 / mu - mu / 2) with (- mu / 2) by (field; lra).
  pose proof (Phi_sym (- mu / 2)). rewrite Rmax_exp_pos by lra. rewrite exp_0.
  rewrite Rmult_1_l. rewrite H in H0. pose proof (exp_pos e).
  assert (E : Phi (- (- mu / 2)) = 1 - / (1 + exp e)) by lra. rewrite E, H. field. lra.
Qed.

Corollary liu2022_thm51_optimal : forall e mu m, 0 <= e -> 0 < mu -> 0 < m ->
  Phi (- mu / 2) = / (1 + exp e) -> adp_delta e 0 0 <= delta_mu m 0 -> mu <= m.
Proof.
  intros e mu m He Hmu Hm H Hle. destruct (Rle_or_lt mu m) as [|Hlt]; [assumption|].
  pose proof (delta_mu_lt_mu m mu 0 Hm Hlt). rewrite (liu2022_thm51_tight e mu He Hmu H) in H0. lra.
Qed.

(** ** Guingona et al. 2023, Lemma 2.3: (ε, δ)-ADP ⇒ (ε̂, g)-PrDP when ε̂ >= ε - ln(1 - δ/g).
    Hypothesis (measure theory): S is the event of outputs whose privacy loss exceeds ε̂, so
    s' = P(M(a') ∈ S) <= e^{-ε̂} s with s = P(M(a) ∈ S); ADP gives s <= e^ε s' + δ. *)
Theorem guingona2023_lemma23 : forall e eh d g s s', 0 < d < g -> 0 <= s -> 0 <= s' ->
  s' <= exp (- eh) * s -> s <= exp e * s' + d -> e - ln (1 - d / g) <= eh -> s <= g.
Proof.
  intros e eh d g s s' Hd Hs Hs' Hloss Hadp Heh.
  assert (Hq : 0 < 1 - d / g).
  { assert (d / g < 1) by (apply Rmult_lt_reg_r with g; [lra|]; unfold Rdiv; rewrite Rmult_assoc, Rinv_l by lra; lra). lra. }
  assert (Hx : exp (e - eh) <= 1 - d / g).
  { rewrite <- (exp_ln (1 - d / g)) by exact Hq. apply exp_le. lra. }
  assert (Hs2 : s <= exp (e - eh) * s + d).
  { unfold Rminus. rewrite exp_plus.
    pose proof (exp_pos e). apply Rle_trans with (exp e * s' + d); [exact Hadp|].
    assert (exp e * s' <= exp e * (exp (- eh) * s)) by (apply Rmult_le_compat_l; lra). lra. }
  assert (s * (d / g) <= d) by nra.
  assert (E : s * (d / g) = d * (s / g)) by (field; lra).
  assert (s / g <= 1) by nra.
  apply (Rmult_le_compat_r g) in H0; [|lra]. unfold Rdiv in H0. rewrite Rmult_assoc, Rinv_l in H0 by lra. lra.
Qed.
